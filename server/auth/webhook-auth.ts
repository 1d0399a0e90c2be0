import { createHash } from 'node:crypto';
import { systemTimers, type Clock, type Timers } from '../clock';
import type { AuthClaims, AuthHandler, AuthResult } from './auth';
import { TokenRefusedError } from './jwt-auth';

export interface WebhookAuthOptions {
  /** The app's endpoint: POSTed `{"token", "roomID"}` as JSON. */
  readonly url: string;
  /** How long an answer (yes or no) is reused for the same token and room. @default 30000 */
  readonly cacheMs?: number;
  /**
   * Answers kept at most, oldest dropped first: this many yeses and, apart
   * from them, this many noes (so a flood of bad tokens does not push out
   * the answers for good ones). An answer is kept under a SHA-256 of the
   * token and room, not the token: about 200 bytes plus the claims.
   * @default 10000
   */
  readonly maxCached?: number;
  /** A call that takes longer fails (and refuses the connect, uncached). @default 5000 */
  readonly timeoutMs?: number;
  /**
   * Calls to the webhook in flight at once. Connects beyond wait for a call
   * in a queue of `maxQueued`, first come first served, for at most
   * `timeoutMs`; connects with the same token and room share one call (and
   * one place in the queue). A connect that finds the queue full, or waits
   * out `timeoutMs` in it, is refused at once without caching, as any failed
   * call is: the client gets `Unauthorized` and connects again with a fresh
   * token after its back-off (the client gives up after MAX_REAUTH_RETRIES
   * refusals in a row). So an endpoint flooded with new tokens sees at most
   * `maxConcurrent` calls at once, however many sockets are connecting.
   * @default 32
   */
  readonly maxConcurrent?: number;
  /** Connects waiting for a webhook call when `maxConcurrent` are in flight; beyond, refused. @default 1000 */
  readonly maxQueued?: number;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** @default Date.now */
  readonly clock?: Clock;
  /** For the wait of a connect queued for a call (`timeoutMs`). @default the global setTimeout/clearTimeout */
  readonly timers?: Timers;
}

const DEFAULT_CACHE_MS = 30_000;
const DEFAULT_MAX_CACHED = 10_000;
const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_MAX_CONCURRENT = 32;
const DEFAULT_MAX_QUEUED = 1000;

interface Cached {
  readonly at: number;
  readonly answer: AuthResult | null;
}

/**
 * An AuthHandler that asks the app: POST `{token, roomID}` to `url`. A 200
 * answer `{"userID": "…", "claims"?: {…}}` lets the client in as that user;
 * 401 or 403 refuses. Both are cached briefly per token and room. Any other
 * answer, a timeout or a network error refuses this connect without caching,
 * and so does a webhook too busy to ask (see `maxConcurrent`).
 */
export function createWebhookAuthHandler(options: WebhookAuthOptions): AuthHandler {
  const cacheMs = options.cacheMs ?? DEFAULT_CACHE_MS;
  const maxCached = options.maxCached ?? DEFAULT_MAX_CACHED;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxConcurrent = options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT;
  const maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED;
  const doFetch = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? { now: () => Date.now() };
  const timers = options.timers ?? systemTimers;
  const allowed = new Map<string, Cached>();
  const refused = new Map<string, Cached>();
  /** Calls asked or waiting for a slot, by cache key: connects with the same token and room share them. */
  const asking = new Map<string, Promise<AuthResult | null>>();
  let calls = 0;
  /** Callers waiting for a call slot, oldest first; each is handed a slot by a call that ends. */
  const queue = new Set<() => void>();

  async function ask(token: string, roomID: string): Promise<AuthResult | null> {
    const res = await doFetch(options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, roomID }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined);
      if (res.status === 401 || res.status === 403) return null;
      throw new TokenRefusedError(`Auth webhook answered HTTP ${res.status}`);
    }
    const body = (await res.json()) as { userID?: unknown; claims?: unknown };
    if (typeof body?.userID !== 'string' || body.userID === '') throw new TokenRefusedError('Auth webhook answer has no userID string');
    const claims = typeof body.claims === 'object' && body.claims !== null && !Array.isArray(body.claims) ? (body.claims as AuthClaims) : {};
    return { userID: body.userID, claims };
  }

  /** Resolves once this caller may call the webhook (it then owns a slot until `endCall`), or refuses. */
  function startCall(): Promise<void> {
    if (calls < maxConcurrent) {
      calls++;
      return Promise.resolve();
    }
    if (queue.size >= maxQueued) {
      return Promise.reject(new TokenRefusedError(`Auth webhook busy: ${calls} calls in flight and ${queue.size} connects waiting; refused, the client retries`));
    }
    return new Promise<void>((resolve, reject) => {
      const take = () => {
        timers.clearTimeout(timer);
        resolve();
      };
      const timer = timers.setTimeout(() => {
        queue.delete(take);
        reject(new TokenRefusedError(`Auth webhook busy: no call free within ${timeoutMs} ms; refused, the client retries`));
      }, timeoutMs);
      queue.add(take);
    });
  }

  function endCall(): void {
    const next = queue.values().next();
    if (next.done === true) {
      calls--;
      return;
    }
    queue.delete(next.value);
    next.value(); // the slot passes on
  }

  async function askInTurn(id: string, token: string, roomID: string): Promise<AuthResult | null> {
    const now = clock.now();
    await startCall();
    let answer: AuthResult | null;
    try {
      answer = await ask(token, roomID);
    } finally {
      endCall();
    }
    const cache = answer === null ? refused : allowed;
    (answer === null ? allowed : refused).delete(id);
    cache.delete(id);
    cache.set(id, { at: now, answer });
    if (cache.size > maxCached) cache.delete(cache.keys().next().value!);
    return answer;
  }

  return (token, roomID) => {
    const id = createHash('sha256').update(roomID).update('\u0000').update(token).digest('base64');
    const now = clock.now();
    for (const cache of [allowed, refused]) {
      const hit = cache.get(id);
      if (hit === undefined) continue;
      if (now - hit.at < cacheMs) return Promise.resolve(hit.answer);
      cache.delete(id);
    }
    const pending = asking.get(id);
    if (pending !== undefined) return pending;
    const answer = askInTurn(id, token, roomID).finally(() => asking.delete(id));
    asking.set(id, answer);
    return answer;
  };
}
