import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { ClientConnection } from './client-connection';
import { silentLogger } from './logger';
import { TextFrame } from './ws-frame';

const params = { clientID: 'c1', clientGroupID: 'g1', roomID: 'r1', baseCookie: null, ts: 0, lmid: 0, wsid: 'w1' };
const servers: WebSocketServer[] = [];

afterEach(async () => {
  for (const s of servers) for (const ws of s.clients) ws.terminate();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/**
 * A real server and client on loopback (compressing both ways when `deflate`), the server side's connection, and what was
 * written to its socket other than through ws's sender.
 */
async function connected(deflate: boolean): Promise<{ conn: ClientConnection; received: string[]; client: WebSocket; writtenPastWs: unknown[] }> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: deflate });
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const serverSide = new Promise<[WebSocket, IncomingMessage]>((resolve) => server.once('connection', (ws, req) => resolve([ws, req])));
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as { port: number }).port}`, { perMessageDeflate: deflate });
  const received: string[] = [];
  client.on('message', (data) => received.push(data.toString()));
  await new Promise((resolve) => client.once('open', resolve));
  const [ws, req] = await serverSide;
  expect(ws.extensions !== '').toBe(deflate);
  // ws's sender writes its frames as a header and a payload between cork() and uncork(): anything else came past it.
  const writtenPastWs: unknown[] = [];
  const socket = req.socket;
  const write = socket.write.bind(socket) as (chunk: unknown) => boolean;
  socket.write = ((chunk: unknown) => {
    if (socket.writableCorked === 0) writtenPastWs.push(chunk);
    return write(chunk);
  }) as typeof socket.write;
  return { conn: new ClientConnection(ws, params, { userID: 'u1', claims: {} }, 1 << 24, silentLogger, '127.0.0.1', socket), received, client, writtenPastWs };
}

/** Resolves once the client has `n` messages. */
function receivedAll(client: WebSocket, received: string[], n: number): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (received.length < n) return;
      client.off('message', check);
      resolve();
    };
    client.on('message', check);
    check();
  });
}

describe('ClientConnection', () => {
  it('writes a framed message to the socket as it is, in order with what ws sends, any size', async () => {
    const { conn, received, client, writtenPastWs } = await connected(false);
    const big = 'b'.repeat(70_000);
    const framed = [new TextFrame('["first framed"]'), new TextFrame(JSON.stringify([big]))];
    conn.send(['pong', {}]);
    conn.sendText(framed[0]!);
    conn.sendText('["text"]');
    conn.sendText(framed[1]!);
    conn.send(['pong', {}]);
    await receivedAll(client, received, 5);
    expect(received).toEqual(['["pong",{}]', '["first framed"]', '["text"]', JSON.stringify([big]), '["pong",{}]']);
    // The framed ones went to the socket as they were, each in one write.
    expect(writtenPastWs).toEqual(framed.map((f) => f.bytes));
    expect(writtenPastWs[0]).toBe(framed[0]!.bytes);
    client.close();
  });

  it('hands framed messages to ws when an extension changes what goes on the wire (compression), keeping their order', async () => {
    const { conn, received, client, writtenPastWs } = await connected(true);
    // Compressed off the thread: what is sent meanwhile waits in ws's queue, and must not pass it.
    const compressed = JSON.stringify(['c'.repeat(50_000)]);
    conn.sendText(compressed);
    conn.sendText(new TextFrame('["after it"]'));
    await receivedAll(client, received, 2);
    expect(received).toEqual([compressed, '["after it"]']);
    expect(writtenPastWs).toEqual([]);
    client.close();
  });

  it('sends nothing once closed', async () => {
    const { conn, received, client } = await connected(false);
    conn.close(1000, 'bye');
    conn.sendText(new TextFrame('["late"]'));
    await new Promise((resolve) => client.once('close', resolve));
    expect(received).toEqual([]);
  });
});
