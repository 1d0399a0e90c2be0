import type { AuthHandler } from './auth/auth';
import type { AddressConnections } from './client-address';
import type { ClientConnection } from './client-connection';
import type { Clock, Timers } from './clock';
import type { EngineHost } from './engine/engine-types';
import type { Logger } from './logger';
import type { OriginPolicy } from './origin-policy';
import type { RoomQuota } from './room-quota';
import type { RoomRegistry } from './room-registry';
import type { ServerCounters } from './stats';
import type { Storage } from './storage/types';

/** Per-connection limits. */
export interface ConnectionLimits {
  readonly maxSendBufferBytes: number;
  readonly mutationsPerSecond: number;
  readonly mutationBurst: number;
  readonly bytesPerSecond: number;
  readonly byteBurst: number;
  readonly idleTimeoutMs: number;
}

/** What the parts of one running server share. */
export interface ServerContext {
  readonly registry: RoomRegistry;
  readonly storage: Storage;
  readonly host: EngineHost;
  readonly authHandler: AuthHandler;
  readonly allowAnonymous: boolean;
  readonly originPolicy: OriginPolicy;
  /** Proxies whose X-Forwarded-For names the client (see clientAddress). */
  readonly trustedProxies: ReadonlySet<string>;
  /** Sockets open per client address, capped. */
  readonly addressConnections: AddressConnections;
  /** Sockets reach the upgrade counted already (the room processes' acceptor counts them). */
  readonly socketsCounted: boolean;
  readonly requireRooms: boolean;
  readonly roomQuota: RoomQuota;
  readonly adminKey: string | undefined;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly counters: ServerCounters;
  readonly limits: ConnectionLimits;
  readonly memoryUsage: () => NodeJS.MemoryUsage;
  /** Connections whose connect was accepted, until their socket closes. */
  readonly connections: Set<ClientConnection>;
  shuttingDown: boolean;
}
