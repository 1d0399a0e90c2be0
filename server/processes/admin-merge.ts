/** The admin API's answers of all room processes, merged into one (see acceptor.ts). */
import type { AdminReply } from '../admin-api';

type Json = Record<string, unknown>;

/** The first answer that is not 200, if any: then that is the answer. */
function failed(replies: readonly AdminReply[]): AdminReply | undefined {
  return replies.find((r) => r.status !== 200);
}

function sumInto(total: Record<string, number>, part: unknown): void {
  for (const [k, v] of Object.entries((part ?? {}) as Record<string, unknown>)) if (typeof v === 'number') total[k] = (total[k] ?? 0) + v;
}

/** GET /stats: counts summed, rooms listed together, and each process's id and memory. */
export function mergeStats(replies: readonly AdminReply[], pids: readonly (number | undefined)[], acceptorMemory: NodeJS.MemoryUsage): AdminReply {
  const counters: Record<string, number> = {};
  let roomsLoaded = 0;
  let connections = 0;
  const rooms: unknown[] = [];
  const processes = replies.map((r, slot) => {
    const json = (r.json ?? {}) as Json;
    if (r.status === 200) {
      roomsLoaded += Number(json.roomsLoaded ?? 0);
      connections += Number(json.connections ?? 0);
      sumInto(counters, json.counters);
      rooms.push(...((json.rooms as unknown[] | undefined) ?? []));
    }
    return { slot, pid: pids[slot] ?? null, status: r.status, ...(r.status === 200 ? { memory: json.memory } : { error: json.error }) };
  });
  return { status: 200, json: { roomsLoaded, connections, counters, memory: acceptorMemory, processes, rooms } };
}

/** GET /rooms: every process's rooms (one storage, or each its own in memory), each once, in id order. */
export function mergeRoomLists(replies: readonly AdminReply[]): AdminReply {
  const bad = failed(replies);
  if (bad !== undefined) return bad;
  const byID = new Map<string, Json>();
  for (const r of replies) for (const room of ((r.json as Json).rooms as Json[] | undefined) ?? []) byID.set(String(room.roomID), room);
  return { status: 200, json: { rooms: [...byID.values()].sort((a, b) => (String(a.roomID) < String(b.roomID) ? -1 : String(a.roomID) > String(b.roomID) ? 1 : 0)) } };
}

/** POST /invalidate: each process ends its own matching connections; the count answered is all of them. */
export function sumInvalidated(replies: readonly AdminReply[]): AdminReply {
  const bad = failed(replies);
  if (bad !== undefined) return bad;
  return { status: 200, json: { invalidated: replies.reduce((n, r) => n + Number((r.json as Json).invalidated ?? 0), 0) } };
}
