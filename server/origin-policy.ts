import { isIP } from 'node:net';

/** Which browser origins may open a socket. */
export interface OriginPolicy {
  /** Exact origins (`https://app.example.com`), or `*` for any. */
  readonly allowed: readonly string[];
  /** Pages served from loopback hosts (localhost, 127.0.0.1, [::1]) on any port: a development convenience. */
  readonly loopback: boolean;
  /**
   * The page's own origin counts only under a name DNS rebinding cannot
   * take (an IP address, localhost): on where a token proves nothing (dev
   * auth: a token is any user id), so that a page of another site rebound to
   * the server cannot act as any user. @default false
   */
  readonly guardRebinding?: boolean;
}

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether a page whose host name is `hostname` can only be the server's own
 * page, never another site's page rebound to the server's address (DNS
 * rebinding): an IP address, or localhost and its subdomains, which browsers
 * resolve to loopback themselves. Another site can rebind only a DNS name it
 * controls.
 */
function cannotBeRebound(hostname: string): boolean {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) !== 0 || bare === 'localhost' || bare.endsWith('.localhost');
}

/**
 * Whether an upgrade request's Origin may connect. No Origin: not a browser
 * (a browser always sends it), allowed, since a non-browser can forge any
 * header anyway; the check protects users' browsers from other sites
 * (cross-site WebSocket hijacking).
 *
 * The page's own origin (the Origin's host is the request's Host) is allowed.
 * With `guardRebinding` on only when that host is an IP address or
 * localhost: a page on another site that rebinds its own DNS name to this
 * server's address (DNS rebinding) also sends an Origin equal to the Host,
 * and a server where a token is any user id (dev auth) is the one worth
 * reaching that way. Such a server reached under another name
 * (`http://mybox.lan:8080`) lists that origin in `allowed`. With real tokens
 * the page's own origin is allowed under any name: a browser does not send
 * a user's token to a rebound page by itself.
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
  if (host !== undefined && url.host === host.toLowerCase() && (policy.guardRebinding !== true || cannotBeRebound(url.hostname))) return true;
  return policy.loopback && LOOPBACK_HOSTNAMES.has(url.hostname);
}
