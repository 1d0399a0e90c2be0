import { ManualSource } from '../../../src/connection/testing/manual-source';
import { seededRandom } from '../../../src/connection/testing/harness';
import { MemoryKvProvider } from '../../../src/kv/memory-provider';
import { MemoryTransport } from './memory-transport';
import type { ScenarioPlatform } from './platform';
import { ScenarioClock } from './scenario-clock';
import type { TransportKind } from './transport';
import { WsTransport } from './ws-transport';

const RANDOM_SEED = 20240601;

let storeCounter = 0;

/**
 * The injected path: the client gets the engine's clock, timers, seeded
 * random, socket constructor and visibility through its `environment` option,
 * and a local store of its own (shared with the orphan) through `kvStore`.
 */
export async function startInjectedPlatform(transportKind: TransportKind, visible: boolean): Promise<ScenarioPlatform> {
  const clock = new ScenarioClock();
  const transport = transportKind === 'ws' ? await WsTransport.start(() => clock.now()) : new MemoryTransport(() => clock.now());
  const visibility = new ManualSource(visible);
  const storeNamespace = `client-conformance-${++storeCounter}`;
  return {
    clock,
    transport,
    setVisible: (value) => visibility.set(value),
    extendOptions: (options, role) => ({
      ...options,
      environment: {
        clock,
        timers: clock,
        random: seededRandom(role === 'client' ? RANDOM_SEED : RANDOM_SEED + 1),
        // The orphan never connects (no socketOrigin); a client that wraps the socket constructor still finds one.
        WebSocket: transport.WebSocket,
        visibility: role === 'client' ? visibility : new ManualSource(true),
        network: new ManualSource(true),
      },
      kvStore: new MemoryKvProvider(storeNamespace),
    }),
    dispose: () => transport.close(),
  };
}
