import type { AuthHandler } from './auth';
import type { ClientConnection } from './client-connection';
import type { Clock } from './clock';
import type { Logger } from './logger';
import type { RoomRegistry } from './room-registry';
import type { ServerCounters } from './stats';
import type { Storage } from './storage/types';

/** What the parts of one running server share. */
export interface ServerContext {
  readonly registry: RoomRegistry;
  readonly storage: Storage;
  readonly authHandler: AuthHandler;
  readonly requireRooms: boolean;
  readonly adminKey: string | undefined;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly counters: ServerCounters;
  readonly maxSendBufferBytes: number;
  readonly memoryUsage: () => NodeJS.MemoryUsage;
  /** Connections whose connect was accepted, until their socket closes. */
  readonly connections: Set<ClientConnection>;
  shuttingDown: boolean;
}
