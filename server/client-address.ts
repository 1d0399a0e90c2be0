import type { IncomingMessage } from 'node:http';
import { decrementCount } from './counts';
import { once } from './once';

/**
 * An address as one form: without a port a proxy may append (`1.2.3.4:5678`,
 * `[2001:db8::1]:443`) or brackets, and an IPv4 address mapped into IPv6
 * (`::ffff:1.2.3.4`, as Node reports IPv4 peers of a dual-stack socket) as
 * the IPv4 address.
 */
export function normalizeAddress(address: string): string {
  let a = address.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracketed !== null) a = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

/** Loopback peers: a proxy on the same host (or a local tool), not capped per address unless proxies are named. */
const LOOPBACK = new Set(['127.0.0.1', '::1']);

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

/**
 * Open sockets per client address, with a cap: `tryOpen` says whether one
 * more may open, and counts it when it may. Without trusted proxies a
 * loopback peer is not capped: it is most likely a reverse proxy on the same
 * host, all of whose clients would otherwise share its one cap.
 */
export class AddressConnections {
  private readonly open = new Map<string, number>();
  /** Sockets counted when they connected (the server's own HTTP server), by the address counted: not counted again at their upgrade. */
  private readonly counted = new WeakMap<object, string>();

  constructor(
    readonly max: number,
    private readonly trustedProxies: ReadonlySet<string>,
  ) {}

  /** Counts one socket of `address` when the cap allows: the function that gives its place back (once, however often called); undefined over the cap. */
  hold(address: string): (() => void) | undefined {
    return this.tryOpen(address) ? once(() => this.closed(address)) : undefined;
  }

  tryOpen(address: string): boolean {
    if (this.trustedProxies.size === 0 && LOOPBACK.has(address)) return true;
    const n = this.open.get(address) ?? 0;
    if (n >= this.max) return false;
    this.open.set(address, n + 1);
    return true;
  }

  /**
   * Counts a socket of the server's own HTTP server as it connects, by its
   * peer (a socket from a trusted proxy is counted at its upgrade, by the
   * address it forwards); false: over the cap, destroy it. Half-written
   * requests hold sockets too (slowloris), so this is where a peer is capped.
   */
  connected(socket: { readonly remoteAddress?: string | undefined; once(event: 'close', listener: () => void): unknown }): boolean {
    const peer = normalizeAddress(socket.remoteAddress ?? 'unknown');
    if (this.trustedProxies.has(peer)) return true;
    if (!this.tryOpen(peer)) return false;
    this.counted.set(socket, peer);
    socket.once('close', () => {
      if (this.counted.delete(socket)) this.closed(peer);
    });
    return true;
  }

  /**
   * The socket moves to another process (it closes here, but stays open
   * there): its place is no longer given back when it closes here; the
   * function returned gives it back (a no-op for a socket not counted).
   */
  handOver(socket: object): () => void {
    const address = this.counted.get(socket);
    if (address === undefined) return () => {};
    this.counted.delete(socket);
    return once(() => this.closed(address));
  }

  /** Whether the socket was counted as it connected (an upgrade of it is not counted again). */
  countedAtConnect(socket: object): boolean {
    return this.counted.has(socket);
  }

  closed(address: string): void {
    decrementCount(this.open, address);
  }
}
