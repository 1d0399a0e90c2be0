import type { RoomChanges, StoredRoom } from '../storage/types';
import { unwireBatch } from './worker-protocol';
import { EngineLostError, type BatchResult, type ClientBinding, type HostBatchRequest, type ConnectRequest, type EngineHost, type OpenReport } from './engine-types';
import type { MutationGuard } from './mutation-guard';
import { RoomPacer, type ThreadPace } from './pacer';
import { RoomEngine, type EngineOptions } from './room-engine';

/** Runs rooms in the calling thread: the main thread, or one worker. */
export class LocalEngineHost implements EngineHost {
  private readonly engines = new Map<string, RoomEngine>();

  constructor(
    private readonly options: EngineOptions,
    private readonly pace: ThreadPace,
    private readonly guardFor: (roomID: string) => MutationGuard,
  ) {}

  async open(roomID: string, stored: StoredRoom, bindings: readonly ClientBinding[] = []): Promise<OpenReport> {
    const engine = new RoomEngine(roomID, stored, bindings, this.options, this.guardFor(roomID), new RoomPacer(this.pace));
    this.engines.set(roomID, engine);
    return { unservable: engine.unservable };
  }

  close(roomID: string): void {
    this.engines.delete(roomID);
  }

  async connect(roomID: string, request: ConnectRequest) {
    return this.engine(roomID).connect(request);
  }

  /** Not async: the engine's promise is handed back as it is (wrapping it in another costs turns of the event loop on every push). */
  batch(roomID: string, request: HostBatchRequest): Promise<BatchResult> {
    try {
      return this.engine(roomID).batch(unwireBatch(request));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async pull(roomID: string, clientGroupID: string, cookie: number | null) {
    return this.engine(roomID).pull(clientGroupID, cookie);
  }

  async apply(roomID: string, changes: RoomChanges) {
    return this.engine(roomID).apply(changes);
  }

  async since(roomID: string, cookie: number, clientGroupIDs: readonly string[]) {
    return this.engine(roomID).since(cookie, clientGroupIDs);
  }

  async stats(roomID: string) {
    return this.engine(roomID).stats();
  }

  async shutdown(): Promise<void> {
    this.engines.clear();
  }

  private engine(roomID: string): RoomEngine {
    const engine = this.engines.get(roomID);
    if (engine === undefined) throw new EngineLostError(roomID, 'it is not open');
    return engine;
  }
}
