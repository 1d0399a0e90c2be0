/** The admin API's answers of all room processes, merged into one (see acceptor.ts). */
import type { AdminReply } from '../admin-api';
import type { SlotStats } from './room-process-pool';

type Json = Record<string, unknown>;

function sumInto(total: Record<string, number>, part: unknown): void {
  for (const [k, v] of Object.entries((part ?? {}) as Record<string, unknown>)) if (typeof v === 'number') total[k] = (total[k] ?? 0) + v;
}

/**
 * GET /stats: counts summed (each process's since it started, and what the
 * acceptor refused itself), rooms listed together, and each process's id,
 * status, stops and memory.
 */
export function mergeStats(replies: readonly AdminReply[], slots: readonly SlotStats[], acceptorCounters: Record<string, number>, acceptorMemory: NodeJS.MemoryUsage): AdminReply {
  const counters: Record<string, number> = {};
  sumInto(counters, acceptorCounters);
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
    return { slot, ...slots[slot]!, status: r.status, ...(r.status === 200 ? { memory: json.memory } : { error: json.error }) };
  });
  counters.roomProcessesStopped = slots.reduce((n, s) => n + s.stops, 0);
  counters.roomProcessesStoppedStuck = slots.reduce((n, s) => n + s.stuckStops, 0);
  return { status: 200, json: { roomsLoaded, connections, counters, memory: acceptorMemory, processes, rooms } };
}

/** POST /invalidate: each process ends its own matching connections; one starting has none. The count answered is all of them. */
export function sumInvalidated(replies: readonly AdminReply[], serving: readonly boolean[]): AdminReply {
  const bad = replies.find((r, i) => r.status !== 200 && serving[i]);
  if (bad !== undefined) return bad;
  return { status: 200, json: { invalidated: replies.reduce((n, r) => n + (r.status === 200 ? Number((r.json as Json).invalidated ?? 0) : 0), 0) } };
}
