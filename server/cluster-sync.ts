import { PRESENCE_KEY_PREFIX } from '../protocol/presence';
import type { ServerContext } from './context';
import { invalidateConnections } from './invalidate';
import type { ClusterEvent, SharedStorage } from './storage/types';

/** How often a node compares the rooms it holds with the storage, in case a notification was missed. */
export const DEFAULT_CLUSTER_POLL_INTERVAL_MS = 2000;

/** A node whose last beat (one per poll interval) is older than this many intervals is gone. */
const NODE_STALE_AFTER_POLLS = 3;

/**
 * A node not seen for this many poll intervals holds no room any more (the
 * others stop hinting it); lenient, as a node cannot record itself while
 * PostgreSQL restarts, and a hint missed is only late (the poll catches up).
 */
const HOLDER_STALE_AFTER_POLLS = 10;

/**
 * Keeps one node's rooms in step with the others through a shared storage.
 * Notifications are hints: a room told of a new version (or a close or
 * delete) reads what changed from the storage. After the listener
 * reconnected (notifications sent meanwhile are gone), and every poll
 * interval, the versions of all rooms held are compared with the storage's
 * in one query and the rooms behind catch up.
 *
 * With presence on, each poll also records this node's beat and reads which
 * nodes are alive: once a node's beats stop, the presence entries of its
 * clients in the rooms held here are removed after the grace period (unless
 * those clients connect here meanwhile); a room loaded later does the same
 * when it is loaded.
 */
export class ClusterSync {
  private timer: unknown;
  private stopped = false;
  /** When (this node's clock) its beat was last recorded. */
  private lastBeat: number | undefined;
  /** A node was found gone and the rooms held here have not read its entries yet. */
  private adoptionOwed = false;

  constructor(
    private readonly ctx: ServerContext,
    private readonly storage: SharedStorage,
    private readonly pollIntervalMs: number,
  ) {}

  async start(): Promise<void> {
    await this.storage.listen((event) => this.onEvent(event));
    await this.hold();
    await this.beat();
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.ctx.timers.clearTimeout(this.timer);
  }

  onEvent(event: ClusterEvent): void {
    switch (event.kind) {
      case 'room':
        this.ctx.registry.held(event.roomID)?.notice(event.version);
        return;
      case 'invalidate':
        invalidateConnections(this.ctx, event);
        return;
      case 'resync':
        void this.resync();
        return;
    }
  }

  /**
   * Records the rooms held here, so the other nodes' batches of these rooms
   * (and only those) are hinted to this node.
   */
  async hold(): Promise<void> {
    if (this.storage.holding === undefined || this.ctx.shuttingDown) return;
    try {
      await this.storage.holding(
        this.ctx.registry.heldRooms().map((r) => r.roomID),
        this.pollIntervalMs * HOLDER_STALE_AFTER_POLLS,
      );
    } catch (error) {
      this.ctx.logger.warn('could not record the rooms this node holds; trying again at the next poll', { error });
    }
  }

  /** Records the rooms held here, and compares each with the storage; the ones behind (or closed, or deleted) catch up. */
  async resync(): Promise<void> {
    await this.hold();
    const rooms = this.ctx.registry.heldRooms();
    if (rooms.length === 0 || this.ctx.shuttingDown) return;
    let states;
    try {
      states = await this.storage.roomStates(rooms.map((r) => r.roomID));
    } catch (error) {
      this.ctx.logger.warn('could not compare rooms with the storage; trying again at the next poll', { error });
      return;
    }
    for (const room of rooms) {
      const state = states.get(room.roomID);
      if (state === undefined) room.notice();
      else if (state.version > room.storedVersion) room.notice(state.version);
      // Closed or opened, or deleted and made again (its version went back).
      else if (state.closed !== room.closed || state.version < room.storedVersion) room.notice();
    }
  }

  /** Records this node's beat; when a node known alive stopped beating, the rooms held adopt its clients' presence entries. */
  async beat(): Promise<void> {
    const presence = this.ctx.registry.presence;
    const { liveness } = presence ?? {};
    if (presence === undefined || liveness === undefined || this.storage.beat === undefined || this.ctx.shuttingDown) return;
    try {
      const live = await this.storage.beat(presence.nodeID, this.pollIntervalMs * NODE_STALE_AFTER_POLLS);
      const now = this.ctx.clock.now();
      // Beats missed for a while: the other nodes may have taken this one for gone and removed its clients' entries.
      const missed = this.lastBeat !== undefined && now - this.lastBeat > this.pollIntervalMs * (NODE_STALE_AFTER_POLLS - 1);
      this.lastBeat = now;
      if (missed) for (const room of this.ctx.registry.heldRooms()) room.presence?.rejoin();
      // A node found gone is adopted until one read of the entries succeeds (a failed read is tried again at the next poll).
      if (liveness.update(live)) this.adoptionOwed = true;
      if (!this.adoptionOwed) return;
      const rooms = this.ctx.registry.heldRooms().filter((r) => r.presence !== undefined);
      if (rooms.length === 0 || this.storage.entriesWithPrefix === undefined) {
        this.adoptionOwed = false;
        return;
      }
      const entries = await this.storage.entriesWithPrefix(
        rooms.map((r) => r.roomID),
        PRESENCE_KEY_PREFIX,
      );
      for (const room of rooms) room.presence!.adopt(entries.get(room.roomID) ?? []);
      this.adoptionOwed = false;
    } catch (error) {
      this.ctx.logger.warn('could not record this node\'s beat or read the other nodes\'; trying again at the next poll', { error });
    }
  }

  private arm(): void {
    if (this.stopped) return;
    this.timer = this.ctx.timers.setTimeout(() => void this.resync().then(() => this.beat()).finally(() => this.arm()), this.pollIntervalMs);
  }
}
