import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { buildConnectURL, encodeAuthSubprotocol } from '../src/protocol';
import { AddressConnections, clientAddress, normalizeAddress } from './client-address';
import { newWsid, uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

const request = (peer: string, forwardedFor?: string | string[]) =>
  ({ socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

describe('client address', () => {
  it('is the peer, an IPv4 peer of a dual-stack socket as IPv4, without a port or brackets', () => {
    expect(normalizeAddress('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(normalizeAddress('::1')).toBe('::1');
    expect(normalizeAddress('203.0.113.7:50001')).toBe('203.0.113.7');
    expect(normalizeAddress('[2001:DB8::1]:443')).toBe('2001:db8::1');
    expect(normalizeAddress('[::1]')).toBe('::1');
    expect(normalizeAddress('2001:db8::1')).toBe('2001:db8::1');
    expect(clientAddress(request('::ffff:10.1.2.3'), new Set())).toBe('10.1.2.3');
  });

  it("ignores X-Forwarded-For from a peer that is not a trusted proxy (a client would choose what it is counted as)", () => {
    expect(clientAddress(request('10.9.9.9', '1.1.1.1'), new Set(['127.0.0.1']))).toBe('10.9.9.9');
  });

  it('behind trusted proxies, is the last address the chain names that is not one of them; what the client wrote itself before is not taken', () => {
    const proxies = new Set(['127.0.0.1', '10.0.0.5']);
    expect(clientAddress(request('127.0.0.1', '203.0.113.7'), proxies)).toBe('203.0.113.7');
    expect(clientAddress(request('127.0.0.1', 'forged-by-client, 203.0.113.7, 10.0.0.5'), proxies)).toBe('203.0.113.7');
    expect(clientAddress(request('::ffff:127.0.0.1', ['198.51.100.1', '10.0.0.5']), proxies)).toBe('198.51.100.1');
    // Only proxies of ours in the chain, or none at all: the first named, else the proxy itself.
    expect(clientAddress(request('127.0.0.1', '10.0.0.5'), proxies)).toBe('10.0.0.5');
    expect(clientAddress(request('127.0.0.1'), proxies)).toBe('127.0.0.1');
  });

  it('counts open sockets per address up to the cap, and frees a place when one closes', () => {
    const open = new AddressConnections(2, new Set());
    expect([open.tryOpen('a'), open.tryOpen('a'), open.tryOpen('a'), open.tryOpen('b')]).toEqual([true, true, false, true]);
    open.closed('a');
    expect(open.tryOpen('a')).toBe(true);
    // A place given back twice (or never taken) is not a new one.
    open.closed('c');
    expect([open.tryOpen('a'), open.tryOpen('b')]).toEqual([false, true]);
  });

  it('holds a place that is given back once, however often its release runs', () => {
    const open = new AddressConnections(1, new Set());
    const release = open.hold('a');
    expect(release).toBeTypeOf('function');
    expect(open.hold('a')).toBeUndefined();
    release!();
    release!();
    expect(open.hold('a')).toBeTypeOf('function');
    expect(open.hold('a')).toBeUndefined();
  });

  it('without trusted proxies does not cap a loopback peer (a proxy on the same host); with them, only what they forward counts', () => {
    const sameHostProxy = new AddressConnections(1, new Set());
    expect([sameHostProxy.tryOpen('127.0.0.1'), sameHostProxy.tryOpen('127.0.0.1'), sameHostProxy.tryOpen('::1')]).toEqual([true, true, true]);
    const named = new AddressConnections(1, new Set(['10.0.0.5']));
    expect([named.tryOpen('127.0.0.1'), named.tryOpen('127.0.0.1')]).toEqual([true, false]);
  });
});

describe('sockets per address', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  /** A socket whose upgrade request says it was forwarded for `forwardedFor`; resolves to its HTTP status (101 when upgraded), or 'dropped' when the server closed the connection unanswered. */
  async function open(forwardedFor: string, sockets: WebSocket[], localAddress?: string): Promise<number | 'dropped'> {
    const url = buildConnectURL(t!.url, { clientID: uniqueID('c'), clientGroupID: uniqueID('g'), roomID: 'shared', baseCookie: null, ts: 1, lmid: 0, wsid: newWsid() });
    const ws = new WebSocket(url, [encodeAuthSubprotocol('user')!], { headers: { 'x-forwarded-for': forwardedFor }, ...(localAddress === undefined ? {} : { localAddress }) });
    sockets.push(ws);
    return new Promise((resolve) => {
      ws.on('error', () => resolve('dropped'));
      ws.on('open', () => resolve(101));
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    });
  }

  it('refuses a socket over the cap of its client address with 429, counting clients behind a trusted proxy by their forwarded address', async () => {
    t = await startTestServer({ maxConnectionsPerAddress: 2, trustedProxies: ['127.0.0.1', '::1'] });
    const sockets: WebSocket[] = [];
    try {
      expect([await open('203.0.113.1', sockets), await open('203.0.113.1', sockets), await open('203.0.113.1', sockets)]).toEqual([101, 101, 429]);
      // Another client behind the same proxy has places of its own.
      expect(await open('203.0.113.2', sockets)).toBe(101);
      // A socket that closes frees its place.
      await new Promise((resolve) => {
        sockets[0]!.once('close', resolve);
        sockets[0]!.close();
      });
      await new Promise((r) => setTimeout(r, 50));
      expect(await open('203.0.113.1', sockets)).toBe(101);
    } finally {
      for (const ws of sockets) ws.terminate();
    }
  });

  it('without trusted proxies counts the peer as it connects (a half-written request holds a place too): forwarded addresses a client writes do not give it more places', async () => {
    t = await startTestServer({ maxConnectionsPerAddress: 2 });
    const sockets: WebSocket[] = [];
    try {
      // From 127.0.0.2: a peer on loopback other than a same-host proxy's usual address.
      const from = (forwardedFor: string) => open(forwardedFor, sockets, '127.0.0.2');
      expect([await from('198.51.100.1'), await from('198.51.100.2'), await from('198.51.100.3')]).toEqual([101, 101, 'dropped']);
      // A half-written HTTP request of that peer (slowloris) is over its cap too: dropped as it connects.
      const raw = connect({ host: '127.0.0.1', port: t.port, localAddress: '127.0.0.2' });
      raw.on('error', () => {});
      raw.write('GET / HTTP/1.1\r\nHost: x\r\n');
      expect(await new Promise((resolve) => raw.on('close', () => resolve('dropped')))).toBe('dropped');
    } finally {
      for (const ws of sockets) ws.terminate();
    }
  });
});
