import { ManualSource } from '../../../src/connection/testing/manual-source';
import { seededRandom } from '../../../src/connection/testing/harness';
import { MemoryKvProvider } from '../../../src/kv/memory-provider';
import type { LogSink } from '../../../src/logging/log-sink';
import { conformanceMutators, type ClientFactory, type ClientUnderTest } from '../factory';
import type { CallbackName, ScenarioClient } from '../scenario';
import type { ScenarioClock } from './scenario-clock';
import type { ServerTransport } from './transport';

export const CONFORMANCE_USER_ID = 'conformance-user';
export const CONFORMANCE_ROOM_ID = 'conformance-room';
const DEFAULT_AUTH_PREFIX = 'token';
const DEFAULT_SCHEMA_VERSION = '1';
const RANDOM_SEED = 20240601;

let storeCounter = 0;

/** A local store of its own for each scenario (the orphan, when there is one, shares it). */
export function newStoreNamespace(): string {
  return `client-conformance-${++storeCounter}`;
}

/** Another build's tab (one more mutator: another client group) that mutated offline and closed. */
export async function makeOrphan(
  factory: ClientFactory,
  clock: ScenarioClock,
  transport: ServerTransport,
  storeNamespace: string,
  schemaVersion: string | undefined,
  mutations: number,
): Promise<{ clientID: string; clientGroupID: string }> {
  const orphan = factory({
    userID: CONFORMANCE_USER_ID,
    roomID: CONFORMANCE_ROOM_ID,
    socketOrigin: null,
    schemaVersion: schemaVersion ?? DEFAULT_SCHEMA_VERSION,
    mutators: { ...conformanceMutators, onlyInTheOtherBuild: async () => {} } as never,
    logLevel: 'error',
    logSinks: [],
    // It never connects (no socketOrigin); a client that wraps the socket constructor still finds one.
    environment: { clock, timers: clock, random: seededRandom(RANDOM_SEED + 1), WebSocket: transport.WebSocket, visibility: new ManualSource(true), network: new ManualSource(true) },
    kvStore: new MemoryKvProvider(storeNamespace),
  });
  const increment = orphan.mutate.increment as (args: unknown) => Promise<unknown>;
  for (let i = 0; i < mutations; i++) await increment({ key: 'orphan', delta: 1 });
  const clientGroupID = await orphan.clientGroupID;
  await orphan.close();
  return { clientID: orphan.clientID, clientGroupID };
}

/** The client under test with every hook the engine needs: fake clock, scripted sockets, manual visibility, counted callbacks. */
export class ClientSession {
  readonly client: ClientUnderTest;
  readonly visibility: ManualSource;
  readonly network = new ManualSource(true);
  readonly schemaVersion: string;
  readonly callbacks: Record<CallbackName, number> = { onUpdateNeeded: 0, onClientStateNotFound: 0 };
  readonly onlineChanges: boolean[] = [];
  /** Lines the client logged at the error level. */
  readonly errorLogs: string[] = [];
  authCalls = 0;

  constructor(factory: ClientFactory, clock: ScenarioClock, transport: ServerTransport, options: ScenarioClient = {}, storeNamespace = newStoreNamespace()) {
    this.visibility = new ManualSource(options.visible ?? true);
    this.schemaVersion = options.schemaVersion ?? DEFAULT_SCHEMA_VERSION;
    const authPrefix = options.authPrefix ?? DEFAULT_AUTH_PREFIX;
    const sink: LogSink = {
      log: (level, _context, ...args) => {
        if (level === 'error') this.errorLogs.push(args.map(String).join(' '));
      },
    };
    this.client = factory({
      userID: CONFORMANCE_USER_ID,
      roomID: CONFORMANCE_ROOM_ID,
      socketOrigin: transport.socketOrigin,
      ...(authPrefix === false ? {} : { auth: () => `${authPrefix}-${++this.authCalls}` }),
      schemaVersion: this.schemaVersion,
      mutators: conformanceMutators,
      logLevel: 'error',
      logSinks: [sink],
      onUpdateNeeded: () => this.callbacks.onUpdateNeeded++,
      onClientStateNotFound: () => this.callbacks.onClientStateNotFound++,
      onOnlineChange: (online) => this.onlineChanges.push(online),
      environment: {
        clock,
        timers: clock,
        random: seededRandom(RANDOM_SEED),
        WebSocket: transport.WebSocket,
        visibility: this.visibility,
        network: this.network,
      },
      kvStore: new MemoryKvProvider(storeNamespace),
    });
  }
}
