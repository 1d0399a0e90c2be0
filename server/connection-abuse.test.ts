/**
 * A single connection that floods or stalls the server (found by probing it
 * as an attacker would): it must not hold the server's memory or its room's
 * queue, whatever it sends and however little it reads.
 */
import type { Socket } from 'node:net';
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { buildConnectURL, encodeAuthSubprotocol } from '../src/protocol';
import type { Timers } from './clock';
import { LOG_LINES_PER_WINDOW, LOG_WINDOW_MS } from './log-budget';
import type { Logger } from './logger';
import { MAX_EARLY_BYTES } from './socket-handler';
import { newWsid, uniqueID, type TestClient } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const socketOf = (c: TestClient) => (c.ws as unknown as { _socket: Socket })._socket;

async function connections(): Promise<number> {
  const { json } = await t!.admin('GET', '/stats');
  return json.connections as number;
}

describe('a connection that floods or stalls', () => {
  it(`is closed once what it sent before its connect was accepted passes ${MAX_EARLY_BYTES} bytes, not only 100 frames`, async () => {
    let admit: () => void = () => {};
    const checked = new Promise<void>((resolve) => (admit = resolve));
    t = await startTestServer({ authHandler: async (token) => (await checked, { userID: token }) });
    const url = buildConnectURL(t.url, { clientID: uniqueID('c'), clientGroupID: uniqueID('g'), roomID: uniqueID('room'), baseCookie: null, ts: 1, lmid: 0, wsid: newWsid() });
    const ws = new WebSocket(url, [encodeAuthSubprotocol('mallory')!]);
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    await new Promise((resolve) => ws.on('open', resolve));
    // Two frames of 600 KB while the token is being checked (the old limit was 100 frames of any size each).
    const frame = JSON.stringify(['ping', {}]).replace('{}', `{"pad":"${'x'.repeat(600 * 1024)}"}`);
    ws.send(frame);
    ws.send(frame);
    expect(await closed).toBe(1008);
    admit();
  });

  it('that asks for pulls faster than they are answered holds one in its room, answered with the newest request', async () => {
    t = await startTestServer();
    const roomID = uniqueID('room');
    const puller = t.connect({ roomID });
    await puller.ready();
    const socket = socketOf(puller);
    socket.cork();
    for (let i = 1; i <= 2000; i++) puller.sendRaw(JSON.stringify(['pull', { clientGroupID: puller.clientGroupID, cookie: null, requestID: `p${i}` }]));
    socket.uncork();
    const answers = () => puller.messages.filter((m) => m[0] === 'pull').map((m) => (m[1] as { requestID: string }).requestID);
    await puller.until(() => answers().at(-1) === 'p2000');
    // The frames arrive in a few reads: each read's pulls share one answer (the old code answered all 2,000).
    expect(answers().length).toBeLessThan(50);
    // Empty pushes between the pulls acknowledge nothing: they do not split the flood into a task per pull.
    const before = answers().length;
    socket.cork();
    for (let i = 1; i <= 2000; i++) {
      puller.push([], puller.clientGroupID, `e${i}`);
      puller.sendRaw(JSON.stringify(['pull', { clientGroupID: puller.clientGroupID, cookie: null, requestID: `q${i}` }]));
    }
    socket.uncork();
    await puller.until(() => answers().at(-1) === 'q2000');
    expect(answers().length - before).toBeLessThan(50);
    const writer = t.connect({ roomID });
    await writer.ready();
    await writer.acked(writer.mutate('put', { key: 'k', value: 1 }));
  });

  it('gets a pull asked after a push answered after that push: a pull does not take the place of one asked before the push', async () => {
    t = await startTestServer();
    const roomID = uniqueID('room');
    // Another group of the same user, whose tab closed before pushing (mutation recovery).
    const closedTab = t.connect({ roomID, token: 'u' });
    await closedTab.ready();
    await closedTab.close();
    const a = t.connect({ roomID, token: 'u' });
    await a.ready();
    const pull = (requestID: string) => JSON.stringify(['pull', { clientGroupID: closedTab.clientGroupID, cookie: null, requestID }]);
    const socket = socketOf(a);
    socket.cork();
    a.sendRaw(pull('p1'));
    a.push([a.mutation('put', { key: 'recovered', value: 1 }, 1, closedTab.clientID)], closedTab.clientGroupID);
    a.sendRaw(pull('p2'));
    socket.uncork();
    const answers = () => a.messages.flatMap((m) => (m[0] === 'pull' ? [m[1] as { requestID: string; lastMutationIDChanges: Record<string, number> }] : []));
    await a.until(() => answers().some((p) => p.requestID === 'p2'));
    expect(answers().map((p) => p.requestID)).toEqual(['p1', 'p2']);
    expect(answers()[1]!.lastMutationIDChanges).toEqual({ [closedTab.clientID]: 1 });
  });

  it('that writes but stopped reading is closed after an idle timeout without progress, even while it keeps sending', async () => {
    const looks: (() => void)[] = [];
    const timers: Timers = {
      setTimeout: (cb, ms) => (ms === 5_000 ? looks.push(cb) : setTimeout(cb, ms)),
      clearTimeout: (h) => (typeof h === 'number' ? undefined : clearTimeout(h as NodeJS.Timeout)),
    };
    t = await startTestServer({ idleTimeoutMs: 10_000, timers, maxSendBufferBytes: 256 * 1024 * 1024, maxFrameBytes: 4 * 1024 * 1024 });
    const roomID = uniqueID('room');
    const stalled = t.connect({ roomID });
    const writer = t.connect({ roomID });
    await Promise.all([stalled.ready(), writer.ready()]);
    socketOf(stalled).pause();
    // More than the sockets' kernel buffers hold: the rest waits in the server's memory for a reader.
    const value = 'v'.repeat(1024 * 1024);
    for (let i = 0; i < 24; i++) await writer.acked(writer.mutate('put', { key: `k${i % 4}`, value: `${i}${value}` }));
    const fire = async () => {
      stalled.sendRaw(JSON.stringify(['ping', {}]));
      writer.sendRaw(JSON.stringify(['ping', {}]));
      await new Promise((r) => setTimeout(r, 50));
      for (const look of looks.splice(0)) look();
      await new Promise((r) => setTimeout(r, 50));
    };
    await fire();
    expect(await connections()).toBe(2);
    await fire();
    await fire();
    expect(await connections()).toBe(1);
    expect(writer.closed).toBe(false);
    const { json } = await t.admin('GET', '/stats');
    expect((json.counters as { idleClosed: number }).idleClosed).toBe(1);
    stalled.ws.terminate();
  });

  it(`that is refused over and over logs ${LOG_LINES_PER_WINDOW} lines a minute with the URL cut short, then one line with the count`, async () => {
    const lines: [string, Record<string, unknown>][] = [];
    const logger: Logger = { debug() {}, warn() {}, error() {}, info: (m, f) => void lines.push([m, f as Record<string, unknown>]) };
    let now = 0;
    t = await startTestServer({ logger, clock: { now: () => now } });
    const refused = async () => {
      const c = t!.connect({ roomID: 'r'.repeat(5000) });
      await c.until(() => c.closed);
    };
    for (let i = 0; i < 50; i++) await refused();
    const refusals = () => lines.filter(([m]) => m.startsWith('connect refused') || m.startsWith('refused connects'));
    expect(refusals()).toHaveLength(LOG_LINES_PER_WINDOW);
    expect(refusals().every(([, f]) => String(f.url).length <= 201)).toBe(true);
    now += LOG_WINDOW_MS;
    await refused();
    expect(refusals().slice(LOG_LINES_PER_WINDOW).map(([m, f]) => [m, f.count])).toEqual([
      ['refused connects not logged one by one', 30],
      ['connect refused', undefined],
    ]);
  });

  it('that reads slowly, falling behind while the room keeps sending, is not closed: its socket makes progress between looks', async () => {
    const looks: (() => void)[] = [];
    const timers: Timers = {
      setTimeout: (cb, ms) => (ms === 5_000 ? looks.push(cb) : setTimeout(cb, ms)),
      clearTimeout: (h) => (typeof h === 'number' ? undefined : clearTimeout(h as NodeJS.Timeout)),
    };
    // The writer sends 56 MB: no byte rate limit in the way.
    const unlimited = { bytesPerSecond: 1e12, byteBurst: 1e12 };
    t = await startTestServer({ idleTimeoutMs: 10_000, timers, maxSendBufferBytes: 256 * 1024 * 1024, maxFrameBytes: 4 * 1024 * 1024, ...unlimited });
    const roomID = uniqueID('room');
    const slow = t.connect({ roomID });
    const writer = t.connect({ roomID });
    await Promise.all([slow.ready(), writer.ready()]);
    const socket = socketOf(slow);
    socket.pause();
    const value = 'v'.repeat(1024 * 1024);
    let round = 0;
    const fill = async (n: number) => {
      for (let i = 0; i < n; i++) await writer.acked(writer.mutate('put', { key: `k${round++ % 4}`, value: `${round}${value}` }));
    };
    await fill(24);
    /** Reads about `bytes` of what waits (a slow reader: less than the room sends meanwhile). */
    const readAbout = (bytes: number) =>
      new Promise<void>((resolve) => {
        let read = 0;
        const onData = (chunk: Buffer) => {
          read += chunk.length;
          if (read < bytes) return;
          socket.off('data', onData);
          socket.pause();
          resolve();
        };
        socket.on('data', onData);
        socket.resume();
      });
    for (let look = 0; look < 4; look++) {
      // Between two looks the client reads a little (a short resume), and the room sends more than it read.
      await readAbout(4 * 1024 * 1024);
      await fill(8);
      slow.sendRaw(JSON.stringify(['ping', {}]));
      writer.sendRaw(JSON.stringify(['ping', {}]));
      await new Promise((r) => setTimeout(r, 50));
      for (const fire of looks.splice(0)) fire();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await connections()).toBe(2);
    expect(slow.closed).toBe(false);
    socket.resume();
  });
});
