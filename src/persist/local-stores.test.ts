import { describe, expect, it } from 'vitest';
import { MemoryKvProvider } from '../kv/memory-provider';
import type { KvProvider } from '../kv/provider';
import type { KvStore } from '../kv/types';
import { openLocalStores } from './local-stores';

let namespaces = 0;

/** A durable-looking provider over memory whose opens of some names fail, and of others wait for the test. */
class ScriptedProvider implements KvProvider {
  readonly durable = true;
  readonly opened: KvStore[] = [];
  /** The names of the stores read, in the order their reads began. */
  readonly reads: string[] = [];
  readonly #inner = new MemoryKvProvider(`local-stores-${++namespaces}`);
  readonly #refused: ReadonlySet<string>;
  readonly #held = new Map<string, Promise<void>>();

  constructor(refused: readonly string[] = []) {
    this.#refused = new Set(refused);
  }

  /** Opens of `name` wait until the returned function is called. */
  hold(name: string): () => void {
    let release!: () => void;
    this.#held.set(name, new Promise<void>((resolve) => (release = resolve)));
    return release;
  }

  async open(name: string): Promise<KvStore> {
    await this.#held.get(name);
    if (this.#refused.has(name)) throw new Error(`refused: ${name}`);
    const kv = await this.#inner.open(name);
    this.opened.push(kv);
    const read = kv.read.bind(kv);
    kv.read = () => (this.reads.push(name), read());
    return kv;
  }

  list(): Promise<readonly string[] | undefined> {
    return this.#inner.list();
  }

  drop(name: string): Promise<void> {
    return this.#inner.drop(name);
  }
}

function recorder() {
  const warnings: string[] = [];
  return { warnings, logger: { info: () => {}, warn: (message: string) => warnings.push(message) } };
}

describe('openLocalStores', () => {
  it('resolves once the data store is open, with the log still opening', async () => {
    const provider = new ScriptedProvider();
    const releaseLog = provider.hold('data:log');
    const { logger, warnings } = recorder();
    const stores = await openLocalStores(provider, 'data', 'data:log', logger);
    expect(stores.provider).toBe(provider);
    expect(provider.opened).toEqual([stores.dataKv]);
    let logOpen = false;
    void stores.logKv.then(() => (logOpen = true));
    await Promise.resolve();
    expect(logOpen).toBe(false);
    releaseLog();
    const logKv = await stores.logKv;
    expect(provider.opened).toEqual([stores.dataKv, logKv]);
    expect(await stores.logInMemory).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('reads the logs as soon as the log store is open, while the data store still opens', async () => {
    const provider = new ScriptedProvider();
    const releaseData = provider.hold('data');
    const { logger } = recorder();
    const opening = openLocalStores(provider, 'data', 'data:log', logger);
    await expect.poll(() => provider.reads).toEqual(['data:log']);
    expect(provider.opened).toHaveLength(1);
    releaseData();
    const stores = await opening;
    expect(await stores.logsRead).toEqual([]);
    expect(provider.reads).toEqual(['data:log']);
  });

  it('a refused data store puts both in memory, and closes the log the provider opened', async () => {
    const provider = new ScriptedProvider(['data']);
    const { logger, warnings } = recorder();
    const stores = await openLocalStores(provider, 'data', 'data:log', logger);
    expect(stores.provider).toBeInstanceOf(MemoryKvProvider);
    const logKv = await stores.logKv;
    expect(provider.opened).not.toContain(stores.dataKv);
    expect(provider.opened).not.toContain(logKv);
    // Both in memory: collecting against that log is sound.
    expect(await stores.logInMemory).toBe(false);
    await expect.poll(() => provider.opened.every((kv) => kv.closed)).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"data"');
  });

  it('a refused log alone lives in memory beside the durable data store, said once', async () => {
    const provider = new ScriptedProvider(['data:log']);
    const { logger, warnings } = recorder();
    const stores = await openLocalStores(provider, 'data', 'data:log', logger);
    expect(stores.provider).toBe(provider);
    expect(provider.opened).toEqual([stores.dataKv]);
    const logKv = await stores.logKv;
    expect(provider.opened).not.toContain(logKv);
    // The memory log works.
    const w = await logKv.write();
    await w.put('k', 1);
    await w.commit();
    const r = await logKv.read();
    expect(await r.get('k')).toBe(1);
    r.release();
    // Said, so that the client collects nothing against it; its logs are read from it.
    expect(await stores.logInMemory).toBe(true);
    expect(await stores.logsRead).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"data:log"');
  });
});
