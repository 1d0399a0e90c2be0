import type { ClusterEvent } from '../types';

/** The one channel every node LISTENs on. */
export const NOTIFY_CHANNEL = 'roomsync';
/**
 * Largest payload sent as it is. PostgreSQL refuses 8,000 bytes and more;
 * an event that would not fit (an enormous room or user id) is sent as
 * `resync` instead, which makes every node check all of its rooms (and an
 * invalidation naming one becomes one of every connection).
 */
export const MAX_NOTIFY_PAYLOAD_BYTES = 1000;

type Wire =
  | { n: string; k: 'room'; r: string; v?: number }
  | { n: string; k: 'invalidate'; a: boolean; u?: string; r?: string }
  | { n: string; k: 'resync' };

export function encodeEvent(nodeID: string, event: ClusterEvent): string {
  let wire: Wire;
  if (event.kind === 'room') wire = { n: nodeID, k: 'room', r: event.roomID, ...(event.version === undefined ? {} : { v: event.version }) };
  else if (event.kind === 'invalidate') {
    wire = { n: nodeID, k: 'invalidate', a: event.all, ...(event.userID === undefined ? {} : { u: event.userID }), ...(event.roomID === undefined ? {} : { r: event.roomID }) };
  } else wire = { n: nodeID, k: 'resync' };
  const text = JSON.stringify(wire);
  if (Buffer.byteLength(text) <= MAX_NOTIFY_PAYLOAD_BYTES) return text;
  // Too long to name: a room event becomes a check of every room; an invalidation errs on the safe side and covers everyone.
  return JSON.stringify(wire.k === 'invalidate' ? { n: nodeID, k: 'invalidate', a: true } : { n: nodeID, k: 'resync' });
}

/** The event and the node that sent it; undefined for a payload that is not one of ours. */
export function decodeEvent(payload: string): { nodeID: string; event: ClusterEvent } | undefined {
  let w: Partial<Record<string, unknown>>;
  try {
    w = JSON.parse(payload) as Partial<Record<string, unknown>>;
  } catch {
    return undefined;
  }
  if (typeof w !== 'object' || w === null || typeof w.n !== 'string') return undefined;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  switch (w.k) {
    case 'room':
      if (typeof w.r !== 'string') return undefined;
      return { nodeID: w.n, event: { kind: 'room', roomID: w.r, ...(typeof w.v === 'number' ? { version: w.v } : {}) } };
    case 'invalidate': {
      const userID = str(w.u);
      const roomID = str(w.r);
      return { nodeID: w.n, event: { kind: 'invalidate', all: w.a === true, ...(userID === undefined ? {} : { userID }), ...(roomID === undefined ? {} : { roomID }) } };
    }
    case 'resync':
      return { nodeID: w.n, event: { kind: 'resync' } };
    default:
      return undefined;
  }
}
