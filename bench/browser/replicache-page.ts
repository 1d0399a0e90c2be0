/** The browser bench's page for Replicache 15.3.0: its public API and its default IndexedDB store. */
import { Replicache, TEST_LICENSE_KEY, type PatchOperation } from 'replicache';
import { benchMutators, type BenchClient, type Impl } from './page-api';
import { workloads } from './workloads';

/** Replicache writes its memory state to IndexedDB about a second after the last change; this is safely after. */
const REPLICACHE_PERSIST_WAIT_MS = 3_000;
const OK = { httpRequestInfo: { httpStatusCode: 200, errorMessage: '' } };

const replicache: Impl = {
  name: 'replicache',
  open(room, options = {}): BenchClient {
    const { onPush } = options;
    const rep = new Replicache({
      name: room,
      licenseKey: TEST_LICENSE_KEY,
      mutators: benchMutators as never,
      pullInterval: null,
      logLevel: 'error',
      ...(onPush === undefined
        ? {}
        : {
            pusher: async (request: { mutations?: unknown[] }) => {
              onPush(request.mutations?.length ?? 0);
              return OK;
            },
          }),
    });
    const mutate = rep.mutate as unknown as Record<string, (args: unknown) => Promise<unknown>>;
    let cookie: number | null = null;
    return {
      mutate: (name, args) => mutate[name]!(args),
      get: (key) => rep.query((tx) => tx.get(key)),
      scanCount: (prefix) => rep.query(async (tx) => (await tx.scan({ prefix }).values().toArray()).length),
      watchCount: (prefix, onCount) => rep.subscribe((tx) => tx.scan({ prefix }).entries().toArray(), { onData: (entries) => onCount(entries.length) }),
      poke: (patch) => {
        const baseCookie = cookie;
        cookie = (baseCookie ?? 0) + 1;
        void rep.poke({ baseCookie, pullResponse: { cookie, lastMutationIDChanges: {}, patch: patch as PatchOperation[] } });
      },
      ready: async () => {
        await rep.clientGroupID;
      },
      close: () => rep.close(),
    };
  },
  async closeDurably(client) {
    await new Promise((r) => setTimeout(r, REPLICACHE_PERSIST_WAIT_MS));
    await client.close();
  },
};

Object.assign(window, { bench: workloads(replicache) });
