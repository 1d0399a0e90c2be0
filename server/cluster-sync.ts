import type { ServerContext } from './context';
import { invalidateConnections } from './invalidate';
import type { ClusterEvent, SharedStorage } from './storage/types';

/** How often a node compares the rooms it holds with the storage, in case a notification was missed. */
export const DEFAULT_CLUSTER_POLL_INTERVAL_MS = 2000;

/**
 * Keeps one node's rooms in step with the others through a shared storage.
 * Notifications are hints: a room told of a new version (or a close or
 * delete) reads what changed from the storage. After the listener
 * reconnected (notifications sent meanwhile are gone), and every poll
 * interval, the versions of all rooms held are compared with the storage's
 * in one query and the rooms behind catch up.
 */
export class ClusterSync {
  private timer: unknown;
  private stopped = false;

  constructor(
    private readonly ctx: ServerContext,
    private readonly storage: SharedStorage,
    private readonly pollIntervalMs: number,
  ) {}

  async start(): Promise<void> {
    await this.storage.listen((event) => this.onEvent(event));
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

  /** Compares every room held with the storage; the ones behind (or closed, or deleted) catch up. */
  async resync(): Promise<void> {
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

  private arm(): void {
    if (this.stopped) return;
    this.timer = this.ctx.timers.setTimeout(() => void this.resync().finally(() => this.arm()), this.pollIntervalMs);
  }
}
