import { randomUUID } from 'node:crypto';
import type { Timers } from '../clock';
import { NodeLiveness } from './node-liveness';
import type { PresenceSettings } from './presence-tracker';

/** A client stays present this long after its last connection closed, so a reconnect (a blip, a reload) changes nothing. */
export const DEFAULT_PRESENCE_GRACE_MS = 10_000;

/** Who is here: one key per connected client under PRESENCE_KEY_PREFIX, maintained by the server. */
export interface PresenceOptions {
  /**
   * How long a client stays present after its last connection closed. A
   * dropped client reconnects within about a second, and within about six
   * when its first attempt fails (the back-off); a reconnect within the
   * grace period changes nothing anyone sees.
   * @default 10000
   */
  readonly graceMs?: number;
  /**
   * This server process's id in presence entries: unique among the nodes
   * sharing a storage. On a shared storage give each node a stable one, so
   * that a node started again removes the entries its earlier run left
   * (those of other nodes are left to them).
   * @default a random UUID
   */
  readonly nodeID?: string;
}

/**
 * The tracker settings for `ServerOptions.presence`; undefined when presence
 * is off (`false`). On a storage of its own, any other node id in an entry is
 * an earlier run of this server; on a shared one it may be a live node, as
 * the nodes' beats say (`liveness`, kept by ClusterSync).
 */
export function presenceSettings(option: boolean | PresenceOptions | undefined, timers: Timers, sharedStorage: boolean): PresenceSettings | undefined {
  if (option === false) return undefined;
  const { graceMs = DEFAULT_PRESENCE_GRACE_MS, nodeID = randomUUID() } = option === true || option === undefined ? {} : option;
  if (!Number.isSafeInteger(graceMs) || graceMs < 0) throw new TypeError(`presence.graceMs must be a non-negative integer of milliseconds, not ${graceMs}`);
  if (typeof nodeID !== 'string' || nodeID === '') throw new TypeError('presence.nodeID must be a non-empty string');
  if (!sharedStorage) return { graceMs, nodeID, timers, nodeMayBeAlive: () => false };
  const liveness = new NodeLiveness();
  return { graceMs, nodeID, timers, nodeMayBeAlive: (id) => liveness.mayBeAlive(id), liveness };
}
