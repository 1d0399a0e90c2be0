/** Which browser origins may open a socket. */
export interface OriginPolicy {
  /** Exact origins (`https://app.example.com`), or `*` for any. */
  readonly allowed: readonly string[];
  /** Pages served from loopback hosts (localhost, 127.0.0.1, [::1]) on any port: a development convenience. */
  readonly loopback: boolean;
}

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether an upgrade request's Origin may connect. No Origin: not a browser
 * (a browser always sends it), allowed, since a non-browser can forge any
 * header anyway; the check protects users' browsers from other sites
 * (cross-site WebSocket hijacking). The page's own origin (the Origin's host
 * is the request's Host) is always allowed.
 */
export function originAllowed(origin: string | undefined, host: string | undefined, policy: OriginPolicy): boolean {
  if (origin === undefined) return true;
  if (policy.allowed.includes('*')) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.origin === 'null') return false;
  if (policy.allowed.some((a) => a.toLowerCase().replace(/\/+$/, '') === url.origin)) return true;
  if (host !== undefined && url.host === host.toLowerCase()) return true;
  return policy.loopback && LOOPBACK_HOSTNAMES.has(url.hostname);
}
