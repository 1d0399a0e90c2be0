/**
 * Records what a page asks of IndexedDB (opens, transactions, requests) with
 * their start and end times, by wrapping the IndexedDB prototypes: where the
 * start-up of a client spends its time, for either implementation.
 */

export interface IdbEvent {
  /** ms since the trace started. */
  readonly start: number;
  end: number | undefined;
  readonly what: string;
  readonly db: string;
  readonly detail: string;
}

type Wrapped = { restore(): void };

function wrap<T extends object, K extends keyof T>(proto: T, name: K, around: (original: T[K]) => T[K]): Wrapped {
  const original = proto[name];
  proto[name] = around(original);
  return { restore: () => void (proto[name] = original) };
}

const short = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return text.length > 48 ? `${text.slice(0, 45)}...` : text;
};

export function traceIndexedDB(): { readonly events: IdbEvent[]; stop(): void } {
  const t0 = performance.now();
  const events: IdbEvent[] = [];
  const begin = (what: string, db: string, detail: string, start = performance.now() - t0): IdbEvent => {
    const event: IdbEvent = { start, end: undefined, what, db, detail };
    events.push(event);
    return event;
  };
  const finish = (event: IdbEvent) => () => void (event.end = performance.now() - t0);
  const wrapped: Wrapped[] = [];

  wrapped.push(
    wrap(IDBFactory.prototype, 'open', (open) =>
      function (this: IDBFactory, name: string, version?: number) {
        const request = open.call(this, name, version);
        const event = begin('open', name, '');
        request.addEventListener('success', finish(event));
        request.addEventListener('error', finish(event));
        return request;
      } as IDBFactory['open'],
    ),
    wrap(IDBDatabase.prototype, 'transaction', (transaction) =>
      function (this: IDBDatabase, stores: string | string[], mode?: IDBTransactionMode, options?: IDBTransactionOptions) {
        const tx = transaction.call(this, stores, mode, options);
        const event = begin(`tx ${mode ?? 'readonly'}`, this.name, '');
        tx.addEventListener('complete', finish(event));
        tx.addEventListener('abort', finish(event));
        return tx;
      } as IDBDatabase['transaction'],
    ),
  );
  for (const method of ['get', 'getKey', 'getAll', 'getAllKeys', 'put', 'delete', 'count', 'openCursor'] as const) {
    wrapped.push(
      wrap(IDBObjectStore.prototype, method, (original) =>
        function (this: IDBObjectStore, ...args: unknown[]) {
          // Timed from the call (a request can take a while to be made: its first in a transaction, a large value's clone).
          const asked = performance.now() - t0;
          const request = (original as (...a: unknown[]) => IDBRequest).apply(this, args);
          const key = method === 'put' ? args[1] : args[0];
          const made = performance.now() - t0;
          const event = begin(method, this.transaction.db.name, `${short(key)}${made - asked >= 0.05 ? ` (call ${(made - asked).toFixed(2)} ms)` : ''}`, asked);
          request.addEventListener('success', finish(event));
          request.addEventListener('error', finish(event));
          return request;
        } as never,
      ),
    );
  }
  return { events, stop: () => wrapped.forEach((w) => w.restore()) };
}
