import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { decodeAuthSubprotocol, decodeUpstream, parseConnectRequest, ProtocolError, type Upstream } from '../src/protocol';
import { ANONYMOUS_USER_ID, type AuthData } from './auth/auth';
import { TokenRefusedError } from './auth/jwt-auth';
import { clientAddress } from './client-address';
import { CLOSE_INTERNAL_ERROR, CLOSE_POLICY, ClientConnection } from './client-connection';
import { IdleWatch, RateLimiter } from './connection-guards';
import type { ServerContext } from './context';
import { ClientError } from './errors';
import { LogBudget } from './log-budget';
import { originAllowed } from './origin-policy';
import { parseRequestURL } from './request-url';
import { refuseUpgrade } from './upgrade-refusal';
import { MAX_ID_BYTES, storedTextProblem } from './stored-text';
import type { Room } from './room';

const ROOM_LOOKUP_ATTEMPTS = 3;
/** Frames a client may send before its connect is accepted; they are handled after. */
const MAX_EARLY_FRAMES = 100;
/**
 * Bytes those frames may hold in all (one frame of the largest size fits):
 * they are read while the token is checked, so they cost memory before
 * anything is known of the client.
 */
export const MAX_EARLY_BYTES = 1024 * 1024;
/** How a push frame starts as the client encodes it (JSON.stringify: no spaces). */
const PUSH_FRAME_START = '["push",';
/** Request fields (URL, headers) are logged cut to this many characters: a client chooses them. */
const LOGGED_FIELD_CHARS = 200;
/** Push frames longer than this wake no worker ahead (decoding them takes longer than the worker's window anyway). */
export const MAX_WAKE_FRAME_CHARS = 16 * 1024;

/** What a connection's frames so far say about waking its room's worker ahead of the next one. */
interface WakeHint {
  /** Whether its last frame that was a push or was invalid was a valid push. */
  lastPushValid: boolean;
}

/**
 * Whether a frame, read before it is decoded, may wake its room's worker:
 * a small text frame that looks like a push, from a connection whose last
 * push-like frame was a valid push (an invalid frame wakes nothing after it).
 */
function mayWakeFor(hint: WakeHint, text: string, isBinary: boolean): boolean {
  return hint.lastPushValid && !isBinary && text.length <= MAX_WAKE_FRAME_CHARS && text.startsWith(PUSH_FRAME_START);
}

/** The first subprotocol offered: the client's encoded auth token. */
function offeredSubprotocol(req: IncomingMessage): string | undefined {
  const header = req.headers['sec-websocket-protocol'];
  if (typeof header !== 'string') return undefined;
  const first = header.split(',')[0]!.trim();
  return first === '' ? undefined : first;
}

/**
 * Upgrades a connect request. A browser page of another site (Origin) gets
 * HTTP 403, a request with no token at all HTTP 401 (unless anonymous users
 * are allowed); every other failure is reported after the upgrade as one
 * error frame followed by a close.
 */
export function createUpgradeHandler(ctx: ServerContext, wss: WebSocketServer) {
  // Anyone can cause a refusal: its lines are rate-limited, and what the client chose is cut short.
  const refusals = new LogBudget(ctx.logger, ctx.clock, 'info', 'refused connects not logged one by one');
  return async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    socket.on('error', () => socket.destroy());
    if (ctx.shuttingDown) return refuseUpgrade(socket, 503);
    const origin = req.headers.origin;
    if (!originAllowed(origin, req.headers.host, ctx.originPolicy)) {
      ctx.counters.rejectedConnects++;
      refusals.log('connect refused: origin not allowed (list it with --allowed-origins)', { origin: cut(origin), host: cut(req.headers.host) });
      return refuseUpgrade(socket, 403);
    }
    if (offeredSubprotocol(req) === undefined && !ctx.allowAnonymous) {
      ctx.counters.rejectedConnects++;
      return refuseUpgrade(socket, 401);
    }
    const address = clientAddress(req, ctx.trustedProxies);
    // Counted by its peer as it connected (the server's own HTTP server), else here: by the address a proxy forwards, or an embedder's socket.
    if (!ctx.socketsCounted && !ctx.addressConnections.countedAtConnect(socket)) {
      const release = ctx.addressConnections.hold(address);
      if (release === undefined) {
        ctx.counters.rejectedConnects++;
        refusals.log('connect refused: too many sockets from one address', { address: cut(address), max: ctx.addressConnections.max });
        return refuseUpgrade(socket, 429);
      }
      // An embedder may hand over a socket that closed meanwhile: its place is given back at once.
      if (socket.destroyed) release();
      else socket.once('close', release);
    }
    wss.handleUpgrade(req, socket, head, (ws) => void serveSocket(ctx, ws, socket, req, address, refusals));
  };
}

function cut(text: string | undefined): string | undefined {
  return text === undefined || text.length <= LOGGED_FIELD_CHARS ? text : `${text.slice(0, LOGGED_FIELD_CHARS)}…`;
}

/** Who the token says the client is; null refuses. A missing, empty or undecodable token is anonymous when allowed. */
async function authenticate(ctx: ServerContext, req: IncomingMessage, roomID: string): Promise<AuthData | null> {
  const token = decodeAuthSubprotocol(offeredSubprotocol(req));
  if (token === undefined || token === '') return ctx.allowAnonymous ? { userID: ANONYMOUS_USER_ID, claims: {} } : null;
  try {
    const result = await ctx.authHandler(token, roomID);
    if (result === null || typeof result.userID !== 'string' || result.userID === '') return null;
    return { userID: result.userID, claims: result.claims ?? {} };
  } catch (error) {
    // A refused token is routine (debug); a handler that fails otherwise is worth a warning.
    if (error instanceof TokenRefusedError) ctx.logger.debug('token refused', { roomID, reason: error.message });
    else ctx.logger.warn('auth handler threw; refusing', { roomID, error });
    return null;
  }
}

async function serveSocket(ctx: ServerContext, ws: WebSocket, socket: Duplex, req: IncomingMessage, address: string, refusals: LogBudget): Promise<void> {
  let session: { conn: ClientConnection; room: Room } | undefined;
  let attaching: { conn: ClientConnection; room: Room } | undefined;
  const early: [RawData, boolean][] = [];
  let earlyBytes = 0;
  const idle = new IdleWatch(ctx, ws);
  const rate = new RateLimiter(ctx, ws);
  const hint: WakeHint = { lastPushValid: false };
  ws.on('message', (data, isBinary) => {
    idle.touch();
    if (session !== undefined) return onFrame(ctx, session.conn, session.room, rate, hint, data, isBinary);
    earlyBytes += rawLength(data);
    if (early.length < MAX_EARLY_FRAMES && earlyBytes <= MAX_EARLY_BYTES) early.push([data, isBinary]);
    else {
      early.length = 0;
      ws.close(CLOSE_POLICY, 'too many frames before connected');
    }
  });
  ws.on('error', (error) => ctx.logger.debug('socket error', { error }));
  ws.on('close', () => {
    idle.stop();
    // Also a connect still in progress: the room must not keep a closed connection.
    const s = session ?? attaching;
    if (s === undefined) return;
    s.room.detach(s.conn);
    ctx.connections.delete(s.conn);
  });
  const failConnect = (kind: ClientError['kind'], message: string): void => {
    ctx.counters.rejectedConnects++;
    refusals.log('connect refused', { kind, message: cut(message), url: cut(req.url) });
    if (ws.readyState !== ws.OPEN) return;
    ws.send(JSON.stringify(['error', kind, message]));
    ws.close(CLOSE_POLICY, kind);
  };
  try {
    if (parseRequestURL(req.url) === undefined) return failConnect('InvalidConnectionRequest', 'Invalid request URL');
    const { params } = parseConnectRequest(req.url ?? '/');
    for (const name of ['roomID', 'clientID', 'clientGroupID'] as const) {
      const problem = storedTextProblem(params[name], MAX_ID_BYTES);
      if (problem !== undefined) return failConnect('InvalidConnectionRequest', `${name} cannot be stored: ${problem}`);
    }
    const auth = await authenticate(ctx, req, params.roomID);
    if (auth === null) {
      const sent = offeredSubprotocol(req) !== undefined && decodeAuthSubprotocol(offeredSubprotocol(req));
      return failConnect('Unauthorized', sent ? 'Unauthorized: the auth token was rejected' : 'Unauthorized: no auth token (or one that is empty or cannot be decoded)');
    }
    const userProblem = storedTextProblem(auth.userID, MAX_ID_BYTES);
    if (userProblem !== undefined) return failConnect('Unauthorized', `Unauthorized: the user id the token maps to cannot be stored: ${userProblem}`);
    const create = ctx.requireRooms ? (false as const) : () => ctx.roomQuota.claim(params.roomID, auth.userID, address);
    let room = await ctx.registry.get(params.roomID, create);
    // A room dropped from memory between the lookup and now: look again (bounded).
    for (let i = 0; room?.isBroken === true && i < ROOM_LOOKUP_ATTEMPTS; i++) room = await ctx.registry.get(params.roomID, create);
    if (room === undefined || room.isBroken) return failConnect('RoomNotFound', params.roomID);
    if (ws.readyState !== ws.OPEN) return;
    const conn = new ClientConnection(ws, params, auth, ctx.limits.maxSendBufferBytes, ctx.logger, address, socket);
    attaching = { conn, room };
    await room.connect(conn);
    attaching = undefined;
    if (ws.readyState !== ws.OPEN) {
      room.detach(conn);
      return;
    }
    session = { conn, room };
    ctx.connections.add(conn);
    ctx.counters.connects++;
    ctx.logger.debug('connected', { roomID: params.roomID, clientID: params.clientID, userID: auth.userID, wsid: params.wsid });
    for (const [data, isBinary] of early.splice(0)) onFrame(ctx, conn, room, rate, hint, data, isBinary);
  } catch (error) {
    attaching = undefined;
    if (error instanceof ClientError || error instanceof ProtocolError) return failConnect(error.kind, error.message);
    ctx.logger.error('connect failed', { url: cut(req.url), error });
    if (ws.readyState === ws.OPEN) ws.close(CLOSE_INTERNAL_ERROR, 'internal error');
  }
}

function onFrame(ctx: ServerContext, conn: ClientConnection, room: Room, rate: RateLimiter, hint: WakeHint, data: RawData, isBinary: boolean): void {
  if (conn.isClosed) return;
  let message: Upstream;
  const text = rawText(data);
  // Most frames are pushes: the room's worker wakes while this one is decoded and queued.
  if (mayWakeFor(hint, text, isBinary)) room.expectPush();
  try {
    if (isBinary) throw new ProtocolError('InvalidMessage', 'Invalid upstream message: binary frames are not accepted; send JSON text');
    message = decodeUpstream(text);
  } catch (error) {
    hint.lastPushValid = false;
    rate.spend(text.length, 0);
    ctx.counters.invalidMessages++;
    const reason = error instanceof Error ? error.message : String(error);
    ctx.logger.debug('invalid message', { roomID: conn.roomID, clientID: conn.clientID, message: reason });
    conn.send(['error', 'InvalidMessage', reason]);
    return;
  }
  rate.spend(text.length, message[0] === 'push' ? message[1].mutations.length : 0);
  switch (message[0]) {
    case 'ping':
      conn.send(['pong', {}]);
      return;
    case 'push':
      hint.lastPushValid = true;
      // A push that can acknowledge something: a pull after it is answered after it. (An empty one cannot: it does not split a pull flood.)
      if (message[1].mutations.length > 0) conn.closePull();
      room.push(conn, message[1], text);
      return;
    case 'pull': {
      // One pull of a connection waits in its room's queue at a time: a newer one takes its place (answered instead).
      const slot = conn.queuePull(message[1]);
      if (slot !== undefined) room.pull(conn, slot).catch((error: unknown) => ctx.logger.error('pull failed', { roomID: conn.roomID, error }));
      return;
    }
  }
}

function rawLength(data: RawData): number {
  return Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
