/**
 * What each implementation's page offers the browser bench: a client through
 * its public API, opened the same way for ours and for Replicache, so the
 * workloads (workloads.ts) are one code for both.
 */

export type ImplName = 'ours' | 'replicache';

export interface PatchPut {
  readonly op: 'put';
  readonly key: string;
  readonly value: unknown;
}

export interface BenchClient {
  mutate(name: string, args: unknown): Promise<unknown>;
  get(key: string): Promise<unknown>;
  /** The number of values under `prefix`, read through a scan of values. */
  scanCount(prefix: string): Promise<number>;
  /** Calls back with the number of entries under `prefix` now and whenever they change (a value too). */
  watchCount(prefix: string, onCount: (count: number) => void): () => void;
  /**
   * Hands a server update that acknowledges nothing to the client through its
   * own entry for server updates (ours: a poke frame on its socket; Replicache:
   * poke()). Cookies are counted here, starting from none.
   */
  poke(patch: readonly PatchPut[]): void;
  /** Resolves once the client can take server updates (ours: connected). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Give the client a server: pushes are reported here (ours: a socket in the page; Replicache: a pusher). */
  readonly onPush?: (mutationCount: number) => void;
}

export interface Impl {
  readonly name: ImplName;
  /** Constructs a client (synchronously, so start-up is timed from the constructor call). */
  open(room: string, options?: OpenOptions): BenchClient;
  /** Closes so that what was written survives a reload (Replicache persists on its own schedule: wait for it). */
  closeDurably(client: BenchClient): Promise<void>;
}

/** Milliseconds on a clock shared by the pages of one browser (cross-page timings). */
export const wallNow = (): number => performance.timeOrigin + performance.now();

const KB = 1024;

export function kbValue(i: number): { i: number; text: string } {
  return { i, text: 'x'.repeat(KB - 40) + String(i).padStart(8, '0') };
}

/** About 100 bytes as JSON. */
export function smallValue(i: number): { i: number; text: string } {
  return { i, text: 'y'.repeat(80) };
}

type Tx = { set?(k: string, v: unknown): Promise<void>; put?(k: string, v: unknown): Promise<void> };
const write = (tx: Tx, k: string, v: unknown) => (tx.set ? tx.set(k, v) : tx.put!(k, v));

/** The mutators both implementations run. */
export const benchMutators = {
  put: async (tx: Tx, a: { key: string; value: unknown }) => {
    await write(tx, a.key, a.value);
  },
  fill: async (tx: Tx, a: { prefix: string; n: number }) => {
    for (let i = 0; i < a.n; i++) await write(tx, `${a.prefix}${String(i).padStart(6, '0')}`, kbValue(i));
  },
};
