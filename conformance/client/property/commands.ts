import fc from 'fast-check';

export type Key = 'a' | 'b' | 'c';

/** What can happen to a client and its server, in the order it happens. */
export type Command =
  /** The app runs put / del / increment on a key (value is the put value or the increment delta). */
  | { readonly type: 'mutate'; readonly op: 'put' | 'del' | 'increment'; readonly key: Key; readonly value: number }
  /** Another client changes a key on the server (null deletes it); a connected client is poked. */
  | { readonly type: 'otherChange'; readonly key: Key; readonly value: number | null }
  /** The server processes up to `count` of the mutations it received and acknowledges them in a poke. */
  | { readonly type: 'ack'; readonly count: number }
  /** The server sends a poke whose baseCookie is not the client's cookie. */
  | { readonly type: 'outOfOrderPoke' }
  /** The server drops the socket. */
  | { readonly type: 'drop' }
  /** The server refuses the next connect attempt (closes it at once). */
  | { readonly type: 'refuseNext' }
  | { readonly type: 'advance'; readonly ms: number }
  /** The page is hidden for `ms`, then visible again. */
  | { readonly type: 'hide'; readonly ms: number }
  /** The app calls reconnect(). */
  | { readonly type: 'reconnect' };

const key = fc.constantFrom<Key>('a', 'b', 'c');
const ADVANCE_STEPS_MS = [100, 1000, 4000, 5000, 7000, 20_000, 65_000];
const HIDE_STEPS_MS = [1000, 4999, 5000, 12_000, 70_000];

export const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ type: fc.constant('mutate' as const), op: fc.constantFrom('put' as const, 'del' as const, 'increment' as const), key, value: fc.integer({ min: -5, max: 5 }) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('otherChange' as const), key, value: fc.option(fc.integer({ min: 0, max: 9 }), { nil: null }) }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('ack' as const), count: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ type: 'drop' as const }) },
  { weight: 1, arbitrary: fc.constant({ type: 'outOfOrderPoke' as const }) },
  { weight: 1, arbitrary: fc.constant({ type: 'refuseNext' as const }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('advance' as const), ms: fc.constantFrom(...ADVANCE_STEPS_MS) }) },
  { weight: 1, arbitrary: fc.constant({ type: 'reconnect' as const }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('hide' as const), ms: fc.constantFrom(...HIDE_STEPS_MS) }) },
);
