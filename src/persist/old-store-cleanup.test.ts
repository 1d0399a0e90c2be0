/** Old-store cleanup removes a deleted store's start-up hint from localStorage with it. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OLD_DB_CLEANUP_MAX_AGE_NO_PENDING_MS } from '../../protocol/constants';
import { MemoryKvProvider } from '../kv/memory-provider';
import { MapStorage } from './chain-hint.testing';
import { localStorageChainHint } from './group-chain';
import { cleanupOldStores } from './old-store-cleanup';
import { dataStoreName } from './store-names';
import { StoreRegistry } from './store-registry';

afterEach(() => vi.unstubAllGlobals());

let places = 0;

describe('cleanupOldStores', () => {
  it("deletes an old store's start-up hint with it, and keeps the hints of the stores it keeps", async () => {
    const storage = new MapStorage();
    vi.stubGlobal('localStorage', storage);
    const provider = new MemoryKvProvider(`old-store-cleanup-${++places}`);
    const registry = new StoreRegistry(provider);
    const old = dataStoreName('u', 'old-room', '1');
    const recent = dataStoreName('u', 'recent-room', '1');
    const inUse = dataStoreName('u', 'room', '1');
    const t0 = 1_000_000;
    await registry.touch(old, t0);
    await registry.touch(inUse, t0);
    await registry.touch(recent, t0 + OLD_DB_CLEANUP_MAX_AGE_NO_PENDING_MS);
    const chain = { head: 'h', commits: ['s', 'h'], root: 'r' };
    for (const name of [old, recent, inUse]) {
      await (await provider.open(name)).close();
      localStorageChainHint(name)!.save(chain);
    }
    expect(storage.length).toBe(3);

    const result = await cleanupOldStores(registry, provider, new Set([inUse]), t0 + OLD_DB_CLEANUP_MAX_AGE_NO_PENDING_MS + 1);
    expect(result.deleted).toEqual([old]);
    expect(storage.getItem(`roomsync-chain-hint/${old}`)).toBeNull();
    expect(localStorageChainHint(old)?.chain).toBeUndefined();
    expect(localStorageChainHint(recent)?.chain).toEqual(chain);
    expect(localStorageChainHint(inUse)?.chain).toEqual(chain);
    for (const name of (await provider.list()) ?? []) await provider.drop(name);
  });

  it('deletes stores where there is no localStorage (Node, a worker)', async () => {
    vi.stubGlobal('localStorage', undefined);
    const provider = new MemoryKvProvider(`old-store-cleanup-${++places}`);
    const registry = new StoreRegistry(provider);
    const old = dataStoreName('u', 'old-room', '1');
    await registry.touch(old, 0);
    await (await provider.open(old)).close();
    expect((await cleanupOldStores(registry, provider, new Set(), OLD_DB_CLEANUP_MAX_AGE_NO_PENDING_MS + 1)).deleted).toEqual([old]);
    for (const name of (await provider.list()) ?? []) await provider.drop(name);
  });
});
