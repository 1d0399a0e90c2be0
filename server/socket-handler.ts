import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { decodeAuthSubprotocol, decodeUpstream, parseConnectRequest, ProtocolError, type Upstream } from '../src/protocol';
import type { AuthResult } from './auth';
import { CLOSE_INTERNAL_ERROR, CLOSE_POLICY, ClientConnection } from './client-connection';
import type { ServerContext } from './context';
import { ClientError } from './errors';
import { parseRequestURL } from './request-url';
import type { Room } from './room';

const ROOM_LOOKUP_ATTEMPTS = 3;
/** Frames a client may send before its connect is accepted; they are handled after. */
const MAX_EARLY_FRAMES = 100;

/** The first subprotocol offered: the client's encoded auth token. */
function offeredSubprotocol(req: IncomingMessage): string | undefined {
  const header = req.headers['sec-websocket-protocol'];
  if (typeof header !== 'string') return undefined;
  const first = header.split(',')[0]!.trim();
  return first === '' ? undefined : first;
}

/**
 * Upgrades a connect request. A request with no subprotocol whose anonymous
 * access the auth handler refuses gets an HTTP 401; every other failure is
 * reported after the upgrade as one error frame followed by a close.
 */
export function createUpgradeHandler(ctx: ServerContext, wss: WebSocketServer) {
  return async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    socket.on('error', () => socket.destroy());
    if (ctx.shuttingDown) return refuse(socket, 503, 'Service Unavailable');
    let preAuth: AuthResult | undefined;
    if (offeredSubprotocol(req) === undefined) {
      const roomID = parseRequestURL(req.url)?.searchParams.get('roomID') ?? '';
      const result = await authenticate(ctx, undefined, roomID);
      if (result === null) return refuse(socket, 401, 'Unauthorized');
      preAuth = result;
    }
    wss.handleUpgrade(req, socket, head, (ws) => void serveSocket(ctx, ws, req, preAuth));
  };
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

async function authenticate(ctx: ServerContext, token: string | undefined, roomID: string): Promise<AuthResult | null> {
  try {
    const result = await ctx.authHandler(token, roomID);
    return result && typeof result.userID === 'string' ? result : null;
  } catch (error) {
    ctx.logger.warn('auth handler threw; refusing', { roomID, error });
    return null;
  }
}

async function serveSocket(ctx: ServerContext, ws: WebSocket, req: IncomingMessage, preAuth: AuthResult | undefined): Promise<void> {
  let session: { conn: ClientConnection; room: Room } | undefined;
  const early: [RawData, boolean][] = [];
  ws.on('message', (data, isBinary) => {
    if (session !== undefined) onFrame(ctx, session.conn, session.room, data, isBinary);
    else if (early.length < MAX_EARLY_FRAMES) early.push([data, isBinary]);
    else ws.close(CLOSE_POLICY, 'too many frames before connected');
  });
  ws.on('error', (error) => ctx.logger.debug('socket error', { error }));
  ws.on('close', () => {
    if (session === undefined) return;
    session.room.detach(session.conn);
    ctx.connections.delete(session.conn);
  });
  const failConnect = (kind: ClientError['kind'], message: string): void => {
    ctx.counters.rejectedConnects++;
    ctx.logger.info('connect refused', { kind, message, url: req.url });
    if (ws.readyState !== ws.OPEN) return;
    ws.send(JSON.stringify(['error', kind, message]));
    ws.close(CLOSE_POLICY, kind);
  };
  try {
    if (parseRequestURL(req.url) === undefined) return failConnect('InvalidConnectionRequest', 'Invalid request URL');
    const { params } = parseConnectRequest(req.url ?? '/');
    const auth = preAuth ?? (await authenticate(ctx, decodeAuthSubprotocol(offeredSubprotocol(req)), params.roomID));
    if (auth === null) return failConnect('Unauthorized', 'Unauthorized: the auth token was rejected');
    let room = await ctx.registry.get(params.roomID, !ctx.requireRooms);
    // A room dropped from memory between the lookup and now: look again (bounded).
    for (let i = 0; room?.isBroken === true && i < ROOM_LOOKUP_ATTEMPTS; i++) room = await ctx.registry.get(params.roomID, !ctx.requireRooms);
    if (room === undefined || room.isBroken) return failConnect('RoomNotFound', params.roomID);
    if (ws.readyState !== ws.OPEN) return;
    const conn = new ClientConnection(ws, params, auth.userID, ctx.maxSendBufferBytes, ctx.logger);
    await room.connect(conn);
    if (ws.readyState !== ws.OPEN) {
      room.detach(conn);
      return;
    }
    session = { conn, room };
    ctx.connections.add(conn);
    ctx.counters.connects++;
    ctx.logger.debug('connected', { roomID: params.roomID, clientID: params.clientID, userID: auth.userID, wsid: params.wsid });
    for (const [data, isBinary] of early.splice(0)) onFrame(ctx, conn, room, data, isBinary);
  } catch (error) {
    if (error instanceof ClientError || error instanceof ProtocolError) return failConnect(error.kind, error.message);
    ctx.logger.error('connect failed', { url: req.url, error });
    if (ws.readyState === ws.OPEN) ws.close(CLOSE_INTERNAL_ERROR, 'internal error');
  }
}

function onFrame(ctx: ServerContext, conn: ClientConnection, room: Room, data: RawData, isBinary: boolean): void {
  if (conn.isClosed) return;
  let message: Upstream;
  try {
    if (isBinary) throw new ProtocolError('InvalidMessage', 'Invalid upstream message: binary frames are not accepted; send JSON text');
    message = decodeUpstream(rawText(data));
  } catch (error) {
    ctx.counters.invalidMessages++;
    const text = error instanceof Error ? error.message : String(error);
    ctx.logger.debug('invalid message', { roomID: conn.roomID, clientID: conn.clientID, message: text });
    conn.send(['error', 'InvalidMessage', text]);
    return;
  }
  switch (message[0]) {
    case 'ping':
      conn.send(['pong', {}]);
      return;
    case 'push':
      room.push(conn, message[1]);
      return;
    case 'pull':
      room.pull(conn, message[1]).catch((error: unknown) => ctx.logger.error('pull failed', { roomID: conn.roomID, error }));
      return;
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
