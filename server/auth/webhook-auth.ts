import type { Clock } from '../clock';
import type { AuthClaims, AuthHandler, AuthResult } from './auth';
import { TokenRefusedError } from './jwt-auth';

export interface WebhookAuthOptions {
  /** The app's endpoint: POSTed `{"token", "roomID"}` as JSON. */
  readonly url: string;
  /** How long an answer (yes or no) is reused for the same token and room. @default 30000 */
  readonly cacheMs?: number;
  /** Answers kept at most (oldest dropped first). @default 10000 */
  readonly maxCached?: number;
  /** A call that takes longer fails (and refuses the connect, uncached). @default 5000 */
  readonly timeoutMs?: number;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** @default Date.now */
  readonly clock?: Clock;
}

const DEFAULT_CACHE_MS = 30_000;
const DEFAULT_MAX_CACHED = 10_000;
const DEFAULT_TIMEOUT_MS = 5000;

/**
 * An AuthHandler that asks the app: POST `{token, roomID}` to `url`. A 200
 * answer `{"userID": "…", "claims"?: {…}}` lets the client in as that user;
 * 401 or 403 refuses. Both are cached briefly per token and room. Any other
 * answer, a timeout or a network error refuses this connect without caching.
 */
export function createWebhookAuthHandler(options: WebhookAuthOptions): AuthHandler {
  const cacheMs = options.cacheMs ?? DEFAULT_CACHE_MS;
  const maxCached = options.maxCached ?? DEFAULT_MAX_CACHED;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const doFetch = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? { now: () => Date.now() };
  const cache = new Map<string, { readonly at: number; readonly answer: AuthResult | null }>();

  async function ask(token: string, roomID: string): Promise<AuthResult | null> {
    const res = await doFetch(options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, roomID }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.status === 401 || res.status === 403) return null;
    if (res.status !== 200) throw new TokenRefusedError(`Auth webhook answered HTTP ${res.status}`);
    const body = (await res.json()) as { userID?: unknown; claims?: unknown };
    if (typeof body?.userID !== 'string' || body.userID === '') throw new TokenRefusedError('Auth webhook answer has no userID string');
    const claims = typeof body.claims === 'object' && body.claims !== null && !Array.isArray(body.claims) ? (body.claims as AuthClaims) : {};
    return { userID: body.userID, claims };
  }

  return async (token, roomID) => {
    const id = `${roomID}\u0000${token}`;
    const now = clock.now();
    const hit = cache.get(id);
    if (hit !== undefined && now - hit.at < cacheMs) return hit.answer;
    const answer = await ask(token, roomID);
    cache.delete(id);
    cache.set(id, { at: now, answer });
    if (cache.size > maxCached) cache.delete(cache.keys().next().value!);
    return answer;
  };
}
