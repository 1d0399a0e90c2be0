import type { IncomingMessage } from 'node:http';

/** An address as one form: an IPv4 address mapped into IPv6 (`::ffff:1.2.3.4`, as Node reports IPv4 peers of a dual-stack socket) is the IPv4 address. */
export function normalizeAddress(address: string): string {
  const a = address.trim().toLowerCase();
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

/**
 * The address of the client a request comes from. Behind a reverse proxy
 * (TLS at the proxy) every socket comes from the proxy: a socket from one of
 * `trustedProxies` is taken for the address its X-Forwarded-For names last,
 * skipping proxies of ours (each proxy appends the address it was reached
 * from; what a client writes there itself comes before them, so it cannot
 * choose the address it is counted under).
 */
export function clientAddress(req: IncomingMessage, trustedProxies: ReadonlySet<string>): string {
  const peer = normalizeAddress(req.socket.remoteAddress ?? 'unknown');
  if (!trustedProxies.has(peer)) return peer;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map(normalizeAddress).filter((a) => a !== '');
  for (let i = hops.length - 1; i >= 0; i--) if (!trustedProxies.has(hops[i]!)) return hops[i]!;
  return hops[0] ?? peer;
}

/** Open sockets per client address, with a cap: `tryOpen` says whether one more may open, and counts it when it may. */
export class AddressConnections {
  private readonly open = new Map<string, number>();

  constructor(readonly max: number) {}

  tryOpen(address: string): boolean {
    const n = this.open.get(address) ?? 0;
    if (n >= this.max) return false;
    this.open.set(address, n + 1);
    return true;
  }

  closed(address: string): void {
    const n = (this.open.get(address) ?? 1) - 1;
    if (n <= 0) this.open.delete(address);
    else this.open.set(address, n);
  }
}
