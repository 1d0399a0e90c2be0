/** The browser bench's page for our client: Reflect through its public API, on the browser's IndexedDB. */
import { Reflect } from '../../src/index';
import { benchMutators, type BenchClient, type Impl } from './page-api';
import { PageServer } from './page-socket';
import { workloads } from './workloads';

const ours: Impl = {
  name: 'ours',
  open(room, options = {}): BenchClient {
    const server = options.onPush === undefined ? undefined : new PageServer(options.onPush);
    const r = new Reflect({
      userID: 'bench',
      roomID: room,
      socketOrigin: server === undefined ? null : 'ws://bench.invalid',
      mutators: benchMutators as never,
      ...(server === undefined ? {} : { environment: { WebSocket: server.socketClass } }),
    });
    const mutate = r.mutate as unknown as Record<string, (args: unknown) => Promise<unknown>>;
    return {
      mutate: (name, args) => mutate[name]!(args),
      get: (key) => r.query((tx) => tx.get(key)),
      scanCount: (prefix) => r.query(async (tx) => (await tx.scan({ prefix }).values().toArray()).length),
      watchCount: (prefix, onCount) => r.subscribe((tx) => tx.scan({ prefix }).entries().toArray(), (entries) => onCount(entries.length)),
      poke: (patch) => server!.poke(patch),
      ready: async () => {
        await r.clientGroupID;
        if (server === undefined || r.connectionStatus.state === 'connected') return;
        await new Promise<void>((resolve) => {
          const stop = r.onConnectionStatusChange((status) => {
            if (status.state !== 'connected') return;
            stop();
            resolve();
          });
        });
      },
      close: () => r.close(),
    };
  },
  // close() stores everything.
  closeDurably: (client) => client.close(),
};

Object.assign(window, { bench: workloads(ours) });
