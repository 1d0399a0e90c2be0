import type { ReadonlyJSONValue } from '../../protocol/json';
import { PRESENCE_KEY_PREFIX } from '../../protocol/presence';
import { readPresenceEntry } from '../../src/presence/presence-entry';
import type { Timers } from '../clock';
import type { StoredEntry } from '../storage/types';
import type { NodeLiveness } from './node-liveness';
import type { PresenceChange } from './presence-change';

export interface PresenceSettings {
  /** How long a client stays present after its last connection to this node closed. */
  readonly graceMs: number;
  /** This node's id, written in the entries of its clients. */
  readonly nodeID: string;
  readonly timers: Timers;
  /**
   * Whether another node named in a stored entry may still hold that
   * client's connection; its entries are then left to it.
   * @default () => false (one node: another node id is an earlier run of this server)
   */
  readonly nodeMayBeAlive?: (nodeID: string) => boolean;
  /** On a shared storage: the nodes' liveness behind `nodeMayBeAlive`, updated from their beats. */
  readonly liveness?: NodeLiveness;
}

/** A connection as presence sees it. */
export interface PresentConnection {
  readonly clientID: string;
  readonly userID: string;
}

/**
 * Who is connected to one room through this node. A client's first
 * connection writes its join; when its last one closes, its leave is written
 * after the grace period, unless it connected again meanwhile (a blip, a
 * reload) — then nobody sees it go and come back.
 */
export class PresenceTracker {
  readonly #connections = new Map<string, Set<PresentConnection>>();
  readonly #leaves = new Map<string, unknown>();
  #stopped = false;

  constructor(
    private readonly settings: PresenceSettings,
    private readonly write: (change: PresenceChange) => void,
  ) {}

  /** Leaves are waiting for their grace period: the room should stay loaded to write them. */
  get holding(): boolean {
    return this.#leaves.size > 0;
  }

  connected(conn: PresentConnection): void {
    if (this.#stopped) return;
    let conns = this.#connections.get(conn.clientID);
    if (conns === undefined) this.#connections.set(conn.clientID, (conns = new Set()));
    const first = conns.size === 0;
    conns.add(conn);
    if (!first) return;
    this.#cancelLeave(conn.clientID);
    this.write({ kind: 'join', clientID: conn.clientID, userID: conn.userID, node: this.settings.nodeID });
  }

  disconnected(conn: PresentConnection): void {
    const conns = this.#connections.get(conn.clientID);
    if (conns === undefined || !conns.delete(conn) || conns.size > 0) return;
    this.#connections.delete(conn.clientID);
    if (!this.#stopped) this.#leaveLater(conn.clientID, this.settings.nodeID);
  }

  /**
   * A room was loaded: entries it holds for clients not connected here (left
   * by an earlier run of this server, or by a node that is gone) are removed
   * after the grace period, unless their clients connect again meanwhile.
   */
  adopt(entries: readonly StoredEntry[]): void {
    const { nodeID, nodeMayBeAlive = () => false } = this.settings;
    for (const stored of entries) {
      if (!stored.key.startsWith(PRESENCE_KEY_PREFIX) || stored.json === undefined) continue;
      const entry = readPresenceEntry(stored.key, parse(stored.json));
      if (entry === undefined || this.#connections.has(entry.clientID) || this.#leaves.has(entry.clientID)) continue;
      if (entry.node !== nodeID && nodeMayBeAlive(entry.node)) continue;
      this.#leaveLater(entry.clientID, entry.node);
    }
  }

  /**
   * Writes the join of every client connected here again: this node's beats
   * stopped for a while (PostgreSQL out of reach), so the other nodes may
   * have taken it for gone and removed its entries. A join of an entry still
   * there writes nothing.
   */
  rejoin(): void {
    if (this.#stopped) return;
    for (const conns of this.#connections.values()) {
      const conn = conns.values().next().value;
      if (conn !== undefined) this.write({ kind: 'join', clientID: conn.clientID, userID: conn.userID, node: this.settings.nodeID });
    }
  }

  /** Writes nothing more: the room stopped, failed or was deleted. Entries left behind are adopted at its next load. */
  stop(): void {
    this.#stopped = true;
    for (const handle of this.#leaves.values()) this.settings.timers.clearTimeout(handle);
    this.#leaves.clear();
  }

  #leaveLater(clientID: string, node: string): void {
    this.#cancelLeave(clientID);
    const handle = this.settings.timers.setTimeout(() => {
      this.#leaves.delete(clientID);
      // Another node's client: that node may have come back within the grace period (its beats resumed); its clients are its own again.
      if (node !== this.settings.nodeID && this.settings.nodeMayBeAlive?.(node) === true) return;
      this.write({ kind: 'leave', clientID, node });
    }, this.settings.graceMs);
    this.#leaves.set(clientID, handle);
  }

  #cancelLeave(clientID: string): void {
    if (!this.#leaves.has(clientID)) return;
    this.settings.timers.clearTimeout(this.#leaves.get(clientID));
    this.#leaves.delete(clientID);
  }
}

function parse(json: string): ReadonlyJSONValue | undefined {
  try {
    return JSON.parse(json) as ReadonlyJSONValue;
  } catch {
    return undefined;
  }
}
