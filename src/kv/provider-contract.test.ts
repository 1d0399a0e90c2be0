// The fake's classes are global too, as in a browser (a prefetch builds an IDBKeyRange).
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { IDBKvProvider } from './idb-provider';
import { MemoryKvProvider } from './memory-provider';
import { describeKvProviderContract } from './provider-contract';

let places = 0;

describeKvProviderContract('memory', () => {
  const namespace = `provider-contract-${++places}`;
  return {
    provider: () => new MemoryKvProvider(namespace),
    async cleanup() {
      const provider = new MemoryKvProvider(namespace);
      for (const name of await provider.list()) await provider.drop(name);
    },
  };
});

describeKvProviderContract('IndexedDB (fake-indexeddb)', () => {
  const factory = new IDBFactory();
  return { provider: () => new IDBKvProvider(factory) };
});
