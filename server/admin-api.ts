import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerContext } from './context';
import { invalidateConnections } from './invalidate';
import { MAX_ADMIN_BODY_BYTES } from './limits';
import { MAX_ID_BYTES, storedTextProblem } from './stored-text';
import { isSharedStorage } from './storage/types';

export const ADMIN_PATH = '/api/admin';

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The admin API (JSON over HTTP, under /api/admin, key in
 * `Authorization: Bearer <key>` or `x-admin-key`):
 *   GET    /stats                     rooms, connections, counters, memory
 *   GET    /rooms                     every stored room
 *   POST   /rooms        {roomID}     create (201; 409 when it exists)
 *   POST   /rooms/:id/close           refuse connects, disconnect with RoomClosed
 *   POST   /rooms/:id/open            accept connects again
 *   DELETE /rooms/:id                 delete with its data, disconnect with RoomNotFound
 *   POST   /invalidate   {all?: true, userID?, roomID?}   disconnect with AuthInvalidated
 * With a shared storage, close, delete and invalidate reach the other nodes
 * too (through the storage's notifications); counts answered are this node's.
 */
export async function handleAdmin(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  let reply: AdminReply;
  try {
    if (!adminAuthorized(ctx.adminKey, req.headers)) throw new HttpError(401, 'Missing or wrong admin key');
    reply = await route(ctx, req.method ?? 'GET', path.slice(ADMIN_PATH.length) || '/', () => readJSON(req));
  } catch (error) {
    reply = errorReply(ctx, path, error);
  }
  sendReply(res, reply);
}

/** An admin request whose key was checked already (by the acceptor of the CLI's room processes), its body as text. */
export async function adminReply(ctx: ServerContext, method: string, path: string, body: string): Promise<AdminReply> {
  try {
    return await route(ctx, method, path.slice(ADMIN_PATH.length) || '/', async () => parseJSONBody(body));
  } catch (error) {
    return errorReply(ctx, path, error);
  }
}

function errorReply(ctx: ServerContext, path: string, error: unknown): AdminReply {
  if (!(error instanceof HttpError)) ctx.logger.error('admin request failed', { path, error });
  return adminFailure(error);
}

/** Whether the request carries the admin key (`Authorization: Bearer <key>` or `x-admin-key`); never with no key set. */
export function adminAuthorized(adminKey: string | undefined, headers: IncomingMessage['headers']): boolean {
  if (adminKey === undefined || adminKey === '') return false;
  const bearer = /^Bearer (.+)$/i.exec(headers.authorization ?? '')?.[1];
  const header = headers['x-admin-key'];
  const given = bearer ?? (typeof header === 'string' ? header : undefined);
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(adminKey);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** An admin answer: HTTP status and JSON body. */
export type AdminReply = { readonly status: number; readonly json: unknown };

async function route(ctx: ServerContext, method: string, path: string, body: () => Promise<unknown>): Promise<AdminReply> {
  const parts = adminPathParts(path);
  const [head, roomID, action] = parts;
  if (method === 'GET' && head === 'stats' && parts.length === 1) return ok(await stats(ctx));
  if (head === 'rooms' && parts.length === 1) {
    if (method === 'GET') return ok({ rooms: await ctx.storage.listRooms() });
    if (method === 'POST') return createRoom(ctx, await body());
  }
  if (head === 'rooms' && roomID !== undefined) {
    if (method === 'DELETE' && parts.length === 2) return deleteRoom(ctx, roomID);
    if (method === 'POST' && parts.length === 3 && (action === 'close' || action === 'open')) {
      return setClosed(ctx, roomID, action === 'close');
    }
  }
  if (method === 'POST' && head === 'invalidate' && parts.length === 1) return await invalidate(ctx, await body());
  throw new HttpError(404, `No admin route ${method} ${path}`);
}

/** The segments of a path under the admin path, decoded; one that cannot be decoded is answered 400. */
export function adminPathParts(path: string): string[] {
  return path.split('/').filter((p) => p !== '').map(decodePart);
}

function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new HttpError(400, `Bad path segment ${part}`);
  }
}

const ok = (json: unknown): AdminReply => ({ status: 200, json });

async function stats(ctx: ServerContext): Promise<unknown> {
  const rooms = await ctx.registry.loaded();
  return {
    roomsLoaded: rooms.length,
    connections: [...ctx.connections].filter((c) => !c.isClosed).length,
    counters: ctx.counters,
    memory: ctx.memoryUsage(),
    ...(ctx.host.spinStats === undefined ? {} : { spinWait: ctx.host.spinStats() }),
    rooms: await Promise.all(
      rooms.map(async (r) => ({
        roomID: r.roomID,
        ...(await r.stats()),
        connections: r.connectionCount,
        closed: r.closed,
      })),
    ),
  };
}

function roomIDOf(body: unknown): string {
  const roomID = (body as { roomID?: unknown } | null)?.roomID;
  if (typeof roomID !== 'string' || roomID === '') throw new HttpError(400, 'Body must be {"roomID": "<non-empty string>"}');
  const problem = storedTextProblem(roomID, MAX_ID_BYTES);
  if (problem !== undefined) throw new HttpError(400, `roomID cannot be stored: ${problem}`);
  return roomID;
}

async function createRoom(ctx: ServerContext, body: unknown): Promise<AdminReply> {
  const roomID = roomIDOf(body);
  const created = await ctx.storage.createRoom(roomID, ctx.clock.now());
  if (!created) throw new HttpError(409, `Room ${roomID} already exists`);
  ctx.logger.info('room created', { roomID });
  return { status: 201, json: { roomID, created: true } };
}

async function setClosed(ctx: ServerContext, roomID: string, closed: boolean): Promise<AdminReply> {
  const room = await ctx.registry.peek(roomID);
  const apply = async () => {
    if (!(await ctx.storage.setRoomClosed(roomID, closed))) throw new HttpError(404, `Room ${roomID} does not exist`);
    if (room === undefined) return 0;
    room.closed = closed;
    return closed ? room.disconnectAll('RoomClosed', `Room ${roomID} was closed`) : 0;
  };
  const disconnected = room === undefined ? await apply() : await room.run(apply);
  ctx.logger.info(closed ? 'room closed' : 'room opened', { roomID, disconnected });
  return ok({ roomID, closed, disconnected });
}

async function deleteRoom(ctx: ServerContext, roomID: string): Promise<AdminReply> {
  const room = await ctx.registry.peek(roomID);
  const apply = async () => {
    if (!(await ctx.storage.deleteRoom(roomID))) throw new HttpError(404, `Room ${roomID} does not exist`);
    ctx.registry.forget(roomID);
    if (room === undefined) return 0;
    room.retire();
    return room.disconnectAll('RoomNotFound', roomID);
  };
  const disconnected = room === undefined ? await apply() : await room.run(apply);
  ctx.logger.info('room deleted', { roomID, disconnected });
  return ok({ roomID, deleted: true, disconnected });
}

async function invalidate(ctx: ServerContext, body: unknown): Promise<AdminReply> {
  const b = (body ?? {}) as { all?: unknown; userID?: unknown; roomID?: unknown };
  const userID = typeof b.userID === 'string' ? b.userID : undefined;
  const roomID = typeof b.roomID === 'string' ? b.roomID : undefined;
  if (b.all !== true && userID === undefined && roomID === undefined) {
    throw new HttpError(400, 'Body must be {"all": true} or name a userID and/or a roomID');
  }
  const target = { all: b.all === true, ...(userID === undefined ? {} : { userID }), ...(roomID === undefined ? {} : { roomID }) };
  const invalidated = invalidateConnections(ctx, target);
  // Other nodes invalidate their own connections when told (the count answered is this node's).
  if (isSharedStorage(ctx.storage)) await ctx.storage.publish({ kind: 'invalidate', ...target });
  ctx.logger.info('connections invalidated', { userID, roomID, all: b.all === true, invalidated });
  return ok({ invalidated });
}

/** A request's body as text, refused over MAX_ADMIN_BODY_BYTES. */
export async function readAdminBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ADMIN_BODY_BYTES) throw new HttpError(413, 'Request body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readJSON(req: IncomingMessage): Promise<unknown> {
  return parseJSONBody(await readAdminBody(req));
}

function parseJSONBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'Body is not JSON');
  }
}

/** Writes an admin answer. */
export function sendReply(res: ServerResponse, reply: AdminReply): void {
  const body = JSON.stringify(reply.json);
  res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** An admin request that could not be answered: its status and message (413 for a body too large, else 500). */
export function adminFailure(error: unknown): AdminReply {
  return error instanceof HttpError ? { status: error.status, json: { error: error.message } } : { status: 500, json: { error: 'Internal error' } };
}
