import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SocketLike } from '../../../src/connection/socket';
import { WsTransport } from './ws-transport';

let transport: WsTransport | undefined;

afterEach(async () => {
  await transport?.close();
  transport = undefined;
});

const start = async () => (transport = await WsTransport.start(() => 0));
const connectPath = '/api/sync/v1/connect?wsid=x';

describe('WsTransport', () => {
  it('holds the upgrade until accepted, and sees a client that gives up on it', async () => {
    const t = await start();
    const client = new t.WebSocket(`${t.socketOrigin}${connectPath}`, 'token') as SocketLike;
    await t.settle();
    expect([t.sockets.length, t.sockets[0]!.upgraded, t.sockets[0]!.protocol, client.readyState]).toEqual([1, false, 'token', WebSocket.CONNECTING]);
    client.close();
    await t.settle();
    expect(t.sockets[0]!.closedByClientAt).toBe(0);
  });

  it('settles once every frame has arrived, both ways', async () => {
    const t = await start();
    const client = new t.WebSocket(`${t.socketOrigin}${connectPath}`) as SocketLike;
    const received: unknown[] = [];
    client.onmessage = (event) => received.push(event.data);
    await t.settle();
    t.sockets[0]!.accept();
    await t.settle();
    for (const text of ['a', 'b', 'c']) client.send(text);
    t.sockets[0]!.deliver('x');
    await t.settle();
    expect([t.sockets[0]!.frames.map((f) => f.text), received]).toEqual([['a', 'b', 'c'], ['x']]);
  });

  it('still settles for a socket of a WebSocket it did not count, by waiting for quiet', async () => {
    const t = await start();
    const client = new WebSocket(`${t.socketOrigin}${connectPath}`);
    client.on('error', () => {});
    await t.settle();
    t.sockets[0]!.accept();
    await new Promise((resolve) => client.once('open', resolve));
    client.send('hello');
    await t.settle();
    expect(t.sockets[0]!.frames.map((f) => f.text)).toEqual(['hello']);
    client.terminate();
  });
});
