import { beforeEach, describe, expect, it, vi } from 'vitest';

/** A fresh copy of memory-kit.ts, its lazy chunk not loaded yet. */
async function freshKit() {
  vi.resetModules();
  return import('./memory-kit');
}

describe("the package's MemoryStore before and after its code loads", () => {
  let kit: Awaited<ReturnType<typeof freshKit>>;
  beforeEach(async () => {
    kit = await freshKit();
  });

  it('names() lists a store right after it is made, before its code loaded', async () => {
    const store = new kit.MemoryStore('made-early');
    expect(kit.MemoryStore.names()).toContain('made-early');
    await store.close();
  });

  it('drop() right after it is made closes the store, and a later store of that name starts empty', async () => {
    const early = new kit.MemoryStore('dropped-early');
    kit.MemoryStore.drop('dropped-early');
    expect(early.closed).toBe(true);
    await expect(early.read()).rejects.toThrow('Store is closed: it was deleted');
    expect(kit.MemoryStore.names()).not.toContain('dropped-early');
    const later = new kit.MemoryStore('dropped-early');
    const read = await later.read();
    expect(await read.has('k')).toBe(false);
    read.release();
    await later.close();
  });

  it("names() and drop() see stores opened through the kvStore 'mem' provider", async () => {
    const kv = await kit.lazyMemoryProvider().open('via-provider');
    const w = await kv.write();
    await w.put('k', 1);
    await w.commit();
    expect(kit.MemoryStore.names()).toContain('via-provider');
    kit.MemoryStore.drop('via-provider');
    expect(kv.closed).toBe(true);
  });
});
