import type { LogSink } from '../../../src/logging/log-sink';
import type { Capability } from '../capabilities';
import { conformanceMutators, type ClientFactory, type ClientOptions, type ClientUnderTest } from '../factory';
import type { CallbackName, ScenarioClient } from '../scenario';
import type { ScenarioPlatform } from './platform';
import { settlePromise } from './settle-promise';

export const CONFORMANCE_ROOM_ID = 'conformance-room';
const CONFORMANCE_USER_PREFIX = 'conformance-user';
const DEFAULT_AUTH_PREFIX = 'token';
const DEFAULT_SCHEMA_VERSION = '1';

/** Expected errors (refused connects, invalid frames) would only clutter the report. */
const SILENT_SINK: LogSink = { log: () => {} };

let userCounter = 0;

/**
 * A user of its own for each scenario: the local store is named after the
 * user and the room (SPEC §3), so no scenario sees another's store, while the
 * orphan, of the same user, shares the client's.
 */
export function newScenarioUserID(): string {
  return `${CONFORMANCE_USER_PREFIX}-${++userCounter}`;
}

/** Another build's tab (one more mutator: another client group) that mutated offline and closed. */
export async function makeOrphan(
  factory: ClientFactory,
  platform: ScenarioPlatform,
  userID: string,
  schemaVersion: string | undefined,
  mutations: number,
): Promise<{ clientID: string; clientGroupID: string }> {
  const options: ClientOptions = {
    userID,
    roomID: CONFORMANCE_ROOM_ID,
    socketOrigin: null,
    schemaVersion: schemaVersion ?? DEFAULT_SCHEMA_VERSION,
    mutators: { ...conformanceMutators, onlyInTheOtherBuild: async () => {} } as never,
    logLevel: 'error',
    logSinks: [SILENT_SINK],
  };
  const orphan = factory(platform.extendOptions(options, 'orphan'));
  const settle = () => platform.transport.settle();
  const increment = orphan.mutate.increment as (args: unknown) => Promise<unknown>;
  for (let i = 0; i < mutations; i++) await settlePromise(increment({ key: 'orphan', delta: 1 }), "the orphan's mutate.increment", settle);
  const ids = await settlePromise(Promise.all([orphan.clientID, orphan.clientGroupID]), "the orphan's clientID and clientGroupID", settle);
  await settlePromise(orphan.close(), "the orphan's close()", settle, platform.clock);
  return { clientID: ids[0], clientGroupID: ids[1] };
}

/**
 * The client under test, created with the options of SPEC §3 (the callbacks
 * when it has them) plus what the platform adds, its auth calls and callbacks counted.
 */
export class ClientSession {
  readonly client: ClientUnderTest;
  readonly schemaVersion: string;
  readonly callbacks: Record<CallbackName, number> = { onUpdateNeeded: 0, onClientStateNotFound: 0 };
  authCalls = 0;

  constructor(factory: ClientFactory, platform: ScenarioPlatform, userID: string, capabilities: readonly Capability[], options: ScenarioClient = {}) {
    this.schemaVersion = options.schemaVersion ?? DEFAULT_SCHEMA_VERSION;
    const authPrefix = options.authPrefix ?? DEFAULT_AUTH_PREFIX;
    const callback = (name: CallbackName) => (capabilities.includes(name) ? { [name]: () => this.callbacks[name]++ } : {});
    const base: ClientOptions = {
      userID,
      roomID: CONFORMANCE_ROOM_ID,
      socketOrigin: platform.transport.socketOrigin,
      ...(authPrefix === false ? {} : { auth: () => `${authPrefix}-${++this.authCalls}` }),
      schemaVersion: this.schemaVersion,
      mutators: conformanceMutators,
      logLevel: 'error',
      logSinks: [SILENT_SINK],
      ...callback('onUpdateNeeded'),
      ...callback('onClientStateNotFound'),
    };
    this.client = factory(platform.extendOptions(base, 'client'));
  }
}
