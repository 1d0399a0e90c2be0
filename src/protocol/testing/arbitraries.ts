/**
 * fast-check arbitraries for every protocol message: valid by construction.
 * Shared by the codec property tests, the server fuzz tests and the conformance suite.
 */
import fc from 'fast-check';
import { ERROR_KINDS } from '../../../protocol/error-kind-list';
import { PUSH_VERSION } from '../../../protocol/constants';
import type { Downstream, Upstream } from '../messages';
import type { Mutation, PatchOperation, ReadonlyJSONValue } from '../generated/types';

/** Through JSON once: what a message looks like after a trip over the wire (-0 becomes 0, null-prototype objects become plain, …). */
const wireNormal = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export const anyString = fc.string({ unit: 'binary', maxLength: 24 });
export const id = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 24 });
export const cookie = fc.nat();
export const nullableCookie = fc.option(cookie, { nil: null });
export const timestamp = fc.double({ noNaN: true, noDefaultInfinity: true, min: 0 }).map((t) => (Object.is(t, -0) ? 0 : t));
export const json: fc.Arbitrary<ReadonlyJSONValue> = fc.jsonValue({ maxDepth: 3 }).map((value) => wireNormal(value as ReadonlyJSONValue));
export const wsid = fc.string({
  unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'),
  minLength: 21,
  maxLength: 21,
});
export const lastMutationIDChanges = fc.dictionary(id, fc.nat(), { maxKeys: 4 });

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  clientID: id,
  name: id,
  args: json,
  timestamp,
});

export const patchOperation: fc.Arbitrary<PatchOperation> = fc.oneof(
  fc.record({ op: fc.constant('put' as const), key: anyString, value: json }),
  fc.record({ op: fc.constant('del' as const), key: anyString }),
  fc.constant({ op: 'clear' as const }),
);

export const pingMessage = fc.constant(['ping', {}] as const);
export const pushMessage = fc.tuple(
  fc.constant('push' as const),
  fc.record({
    timestamp,
    clientGroupID: id,
    mutations: fc.array(mutation, { maxLength: 5 }),
    pushVersion: fc.constant(PUSH_VERSION),
    schemaVersion: anyString,
    requestID: anyString,
  }),
);
export const pullRequestMessage = fc.tuple(
  fc.constant('pull' as const),
  fc.record({ clientGroupID: id, cookie: nullableCookie, requestID: anyString }),
);

export const connectedMessage = fc.tuple(
  fc.constant('connected' as const),
  fc.record({ wsid, timestamp }, { requiredKeys: ['wsid'] }),
);
export const pongMessage = fc.constant(['pong', {}] as const);
export const pokeMessage = fc.tuple(
  fc.constant('poke' as const),
  fc.record(
    {
      baseCookie: nullableCookie,
      cookie,
      lastMutationIDChanges,
      patch: fc.array(patchOperation, { maxLength: 6 }),
      timestamp,
      requestID: anyString,
    },
    { requiredKeys: ['baseCookie', 'cookie', 'lastMutationIDChanges', 'patch', 'requestID'] },
  ),
);
export const pullResponseMessage = fc.tuple(
  fc.constant('pull' as const),
  fc.record({ cookie, lastMutationIDChanges, requestID: anyString }),
);
export const errorMessage = fc.tuple(fc.constant('error' as const), fc.constantFrom(...ERROR_KINDS), anyString);

export const UPSTREAM_ARBITRARIES = {
  ping: pingMessage.map(wireNormal),
  push: pushMessage.map(wireNormal),
  pull: pullRequestMessage.map(wireNormal),
} as const satisfies Record<Upstream[0], fc.Arbitrary<Upstream>>;

export const DOWNSTREAM_ARBITRARIES = {
  connected: connectedMessage.map(wireNormal),
  pong: pongMessage.map(wireNormal),
  poke: pokeMessage.map(wireNormal),
  pull: pullResponseMessage.map(wireNormal),
  error: errorMessage.map(wireNormal),
} as const satisfies Record<Downstream[0], fc.Arbitrary<Downstream>>;

export const upstreamMessage: fc.Arbitrary<Upstream> = fc.oneof(...Object.values(UPSTREAM_ARBITRARIES));
export const downstreamMessage: fc.Arbitrary<Downstream> = fc.oneof(...Object.values(DOWNSTREAM_ARBITRARIES));
