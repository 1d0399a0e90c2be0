/** For tests that watch or fail a store's writes through a real provider. */
import type { KvProvider } from './provider';
import type { KvStore, KvWrite } from './types';

/**
 * A provider over `inner` whose stores hand their write transactions to
 * `wrap` (which may change or replace their methods); a store whose name
 * `wrapped` refuses is `inner`'s as it is. `opened` sees every store opened.
 */
export function withWrappedWrites(
  inner: KvProvider,
  wrap: (write: KvWrite, storeName: string) => KvWrite,
  options: { readonly wrapped?: (storeName: string) => boolean; readonly opened?: (kv: KvStore) => void } = {},
): KvProvider {
  return {
    durable: inner.durable,
    list: () => inner.list(),
    drop: (name) => inner.drop(name),
    async open(name) {
      const kv = await inner.open(name);
      options.opened?.(kv);
      if (options.wrapped?.(name) === false) return kv;
      return {
        read: () => kv.read(),
        write: async () => wrap(await kv.write(), name),
        close: () => kv.close(),
        get closed() {
          return kv.closed;
        },
      };
    },
  };
}
