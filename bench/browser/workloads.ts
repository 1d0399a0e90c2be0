/**
 * The browser bench's workloads, run inside the page over either
 * implementation (page-api.ts). Each step returns plain numbers; the driver
 * (run.ts) calls them, reloads pages between steps where a row needs a fresh
 * page load, and keeps medians.
 */
import { traceIndexedDB, type IdbEvent } from './idb-trace';
import { prefix, subscribeAll, SUBSCRIPTIONS } from '../subscriptions';
import { benchMutators, kbValue, smallValue, wallNow, type BenchClient, type Impl, type PatchPut } from './page-api';

const SUBSCRIPTION_SAMPLES = 500;
const SUBSCRIPTION_WARMUP = 100;
const POKE_ROUNDS = 21;
const REBASE_ROUNDS = 5;
const SETTLE_MS = 20;
/** After a client opened, before a timed part: the start-up work of either implementation is not what is measured. */
const AFTER_OPEN_MS = 100;

export { benchMutators };

const key = (i: number) => `k/${String(i).padStart(6, '0')}`;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
const median = (values: readonly number[]) => percentile(values, 50);

/** `p`, or a failure naming `what` after `ms`; the timer is cleared once `p` settles. */
function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)));
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * When `p` settles (performance.now() in its own callback), failing after
 * `ms`. Call it before starting the clock: the guard's timer and race are
 * then made outside the timed window (they took about 5 µs of a 30 µs
 * sample inside it).
 */
function settledAt(p: Promise<unknown>, ms: number, what: string): Promise<number> {
  return withTimeout(
    p.then(() => performance.now()),
    ms,
    what,
  );
}

export function workloads(impl: Impl) {
  let tab: { client: BenchClient; seen?: Promise<number> } | undefined;
  let trace: ReturnType<typeof traceIndexedDB> | undefined;
  let leftOpen: BenchClient | undefined;

  return {
    crossOriginIsolated: async () => globalThis.crossOriginIsolated === true,

    /** Starts recording what this page asks of IndexedDB (for diagnosis). */
    async traceStart(): Promise<void> {
      trace = traceIndexedDB();
    },

    async traceStop(): Promise<IdbEvent[]> {
      trace?.stop();
      const events = trace?.events ?? [];
      trace = undefined;
      return events;
    },

    /** Mutations per second of `n` sequential single-key puts of about 100 B. */
    async sequentialPuts(room: string, n: number): Promise<number> {
      const c = impl.open(room);
      await c.ready();
      await sleep(AFTER_OPEN_MS);
      const start = performance.now();
      for (let i = 0; i < n; i++) await c.mutate('put', { key: key(i), value: smallValue(i) });
      const ms = performance.now() - start;
      await c.close();
      return (n / ms) * 1000;
    },

    /** ms from mutate to the matching onData with 100 subscriptions open: [p50, p95]. */
    async subscriptionLatency(room: string): Promise<[number, number]> {
      const c = impl.open(room);
      const subs = await subscribeAll((p, onData) => c.watchCount(p, onData));
      const samples: number[] = [];
      for (let i = 0; i < SUBSCRIPTION_WARMUP + SUBSCRIPTION_SAMPLES; i++) {
        const p = i % SUBSCRIPTIONS;
        const done = settledAt(subs.waitFor(p), 30_000, 'mutate → onData');
        const start = performance.now();
        void c.mutate('put', { key: `${prefix(p)}k`, value: i });
        const end = await done;
        if (i >= SUBSCRIPTION_WARMUP) samples.push(end - start);
      }
      subs.end();
      await c.close();
      return [percentile(samples, 50), percentile(samples, 95)];
    },

    /** MB/s of one mutation writing `n` × 1 KiB. */
    async populate(room: string, n: number): Promise<number> {
      const c = impl.open(room);
      await c.ready();
      await sleep(AFTER_OPEN_MS);
      const start = performance.now();
      await c.mutate('fill', { prefix: 'f/', n });
      const ms = performance.now() - start;
      await c.close();
      return (n * 1024) / 1e6 / (ms / 1000);
    },

    /** Writes `n` × 1 KiB in one mutation and closes so that the next page load finds them. */
    async prepareStore(room: string, n: number): Promise<void> {
      const c = impl.open(room);
      await c.mutate('fill', { prefix: 'f/', n });
      await impl.closeDurably(c);
    },

    /** ms from the constructor to the first get of a key of a stored store (run on a fresh page load). */
    async reopenGet(room: string, n: number): Promise<number> {
      const start = performance.now();
      const c = impl.open(room);
      const value = (await c.get(`f/${String(n - 1).padStart(6, '0')}`)) as { i?: number } | undefined;
      const ms = performance.now() - start;
      if (value?.i !== n - 1) throw new Error(`reopen: the stored value is not there (${JSON.stringify(value)?.slice(0, 80)})`);
      await c.close();
      return ms;
    },

    /**
     * reopenGet, leaving the client open until closeLeftOpen: a CPU profile of
     * this step alone holds the open and the first get, not the close after it.
     */
    async reopenGetLeavingOpen(room: string, n: number): Promise<number> {
      const start = performance.now();
      const c = impl.open(room);
      const value = (await c.get(`f/${String(n - 1).padStart(6, '0')}`)) as { i?: number } | undefined;
      const ms = performance.now() - start;
      leftOpen = c;
      if (value?.i !== n - 1) throw new Error(`reopen: the stored value is not there (${JSON.stringify(value)?.slice(0, 80)})`);
      return ms;
    },

    async closeLeftOpen(): Promise<void> {
      await leftOpen?.close();
      leftOpen = undefined;
    },

    /** reopenGet, with what the client asked of IndexedDB on the way (and after, until `settleMs` later). */
    async traceReopenGet(room: string, n: number, settleMs: number): Promise<{ ms: number; events: IdbEvent[] }> {
      const trace = traceIndexedDB();
      const start = performance.now();
      const c = impl.open(room);
      await c.get(`f/${String(n - 1).padStart(6, '0')}`);
      const ms = performance.now() - start;
      await sleep(settleMs);
      trace.stop();
      await c.close();
      return { ms, events: trace.events };
    },

    /** ms from the constructor to a scan of all `n` stored values (run on a fresh page load). */
    async reopenScan(room: string, n: number): Promise<number> {
      const start = performance.now();
      const c = impl.open(room);
      const seen = await c.scanCount('f/');
      const ms = performance.now() - start;
      if (seen !== n) throw new Error(`reopen: scan saw ${seen} of ${n}`);
      await c.close();
      return ms;
    },

    /** ms from a 10-put server update to the 10 matching onData calls, with 100 subscriptions and `pending` pending mutations. */
    async pokeWithSubscriptions(room: string, pending: number, puts: number): Promise<number> {
      const c = impl.open(room, { onPush: () => {} });
      await c.ready();
      await sleep(AFTER_OPEN_MS);
      const subs = await subscribeAll((p, onData) => c.watchCount(p, onData));
      for (let i = 0; i < pending; i++) await c.mutate('put', { key: key(i), value: smallValue(i) });
      const times: number[] = [];
      for (let r = 0; r < POKE_ROUNDS; r++) {
        const patch: PatchPut[] = [];
        const fired: Promise<void>[] = [];
        for (let j = 0; j < puts; j++) {
          patch.push({ op: 'put', key: `${prefix(j)}server`, value: { r, j, text: 'z'.repeat(100) } });
          fired.push(subs.waitFor(j));
        }
        const done = settledAt(Promise.all(fired), 30_000, 'poke → onData');
        const start = performance.now();
        c.poke(patch);
        times.push((await done) - start);
      }
      subs.end();
      await c.close();
      return median(times.slice(Math.floor(POKE_ROUNDS / 3)));
    },

    /** ms from a server update (acknowledging nothing) to its onData, over `pending` pending 1 KiB mutations (each rebased). */
    async rebase(room: string, pending: number): Promise<number> {
      const c = impl.open(room, { onPush: () => {} });
      await c.ready();
      await sleep(AFTER_OPEN_MS);
      for (let i = 0; i < pending; i++) await c.mutate('put', { key: key(i), value: kbValue(i) });
      let onData: (() => void) | undefined;
      let first = true;
      const stop = c.watchCount('server/', () => {
        if (first) first = false;
        else onData?.();
      });
      const times: number[] = [];
      for (let r = 0; r < REBASE_ROUNDS; r++) {
        const done = settledAt(new Promise<void>((resolve) => (onData = resolve)), 60_000, 'rebase → onData');
        const start = performance.now();
        c.poke([{ op: 'put', key: `server/${r}`, value: { r } }]);
        times.push((await done) - start);
      }
      stop();
      await c.close();
      return median(times.slice(1));
    },

    /** Tab A: `n` sequential puts of about 100 B; returns the (cross-page) time the last one resolved. Stays open. */
    async mutateAndStay(room: string, n: number): Promise<number> {
      const c = impl.open(room);
      await c.ready();
      for (let i = 0; i < n; i++) await c.mutate('put', { key: key(i), value: smallValue(i) });
      const end = wallNow();
      tab = { client: c };
      return end;
    },

    /**
     * A fresh client after another, each opened, counted and closed, until one
     * has seen `n` values: returns the (cross-page) time it had.
     */
    async probeUntilSeen(room: string, n: number, timeoutMs: number): Promise<{ at: number; probes: number }> {
      const deadline = performance.now() + timeoutMs;
      for (let probes = 1; performance.now() < deadline; probes++) {
        const c = impl.open(room);
        const seen = await c.scanCount('k/');
        const at = wallNow();
        await c.close();
        if (seen >= n) return { at, probes };
      }
      throw new Error(`no fresh client saw ${n} values within ${timeoutMs} ms`);
    },

    /** Local mutations that the next page load finds pending. */
    async makePending(room: string, n: number): Promise<void> {
      const c = impl.open(room);
      for (let i = 0; i < n; i++) await c.mutate('put', { key: key(i), value: smallValue(i) });
      await impl.closeDurably(c);
    },

    /** ms from the constructor to the first push (on a fresh page load over `n` pending mutations). */
    async firstPush(room: string, n: number): Promise<number> {
      let pushed: ((count: number) => void) | undefined;
      const first = new Promise<number>((resolve) => (pushed = resolve));
      const start = performance.now();
      const c = impl.open(room, { onPush: (count) => pushed?.(count) });
      const count = await withTimeout(first, 30_000, 'first push');
      const ms = performance.now() - start;
      await c.close();
      if (count !== n) throw new Error(`the first push carried ${count} mutations, not ${n}`);
      return ms;
    },

    // ---- two tabs of one browser context ----

    async tabOpen(room: string): Promise<void> {
      const c = impl.open(room);
      await c.ready();
      await c.get('warm-up');
      tab = { client: c };
    },

    /** Tab B: watches `r<round>/` until it holds `n` keys. Resolves once the first onData came. */
    async tabWatch(round: number, n: number): Promise<void> {
      const t = tab!;
      let initial: (() => void) | undefined;
      const ready = new Promise<void>((r) => (initial = r));
      t.seen = new Promise<number>((resolve) => {
        const stop = t.client.watchCount(`r${round}/`, (count) => {
          initial?.();
          if (count < n) return;
          resolve(wallNow());
          queueMicrotask(() => stop());
        });
      });
      await ready;
      await sleep(SETTLE_MS);
    },

    /** Tab A: writes `n` × 1 KiB under `r<round>/` in one mutation; returns the (cross-page) time it started. */
    async tabMutate(round: number, n: number): Promise<number> {
      const start = wallNow();
      await tab!.client.mutate('fill', { prefix: `r${round}/`, n });
      return start;
    },

    /** Tab B: the (cross-page) time its subscription saw everything. */
    async tabSeen(timeoutMs: number): Promise<number> {
      return withTimeout(tab!.seen!, timeoutMs, 'tab B never saw the change');
    },

    async tabClose(): Promise<void> {
      await tab?.client.close();
      tab = undefined;
    },
  };
}

export type Workloads = ReturnType<typeof workloads>;
