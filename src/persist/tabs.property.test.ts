/**
 * Random lifecycles of tabs over one shared store: tabs open (with one of two
 * builds, so two client groups), mutate, persist and refresh, crash or close,
 * meet a server, sleep for days, and collect garbage. Nothing a view needs is
 * ever collected, no mutation is lost, none is applied twice.
 */
import 'fake-indexeddb/auto';
import fc from 'fast-check';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { IDBKvProvider } from '../kv/idb-provider';
import type { KvProvider } from '../kv/provider';
import type { ReadonlyJSONValue } from '../../protocol/json';
import type { Chunk, Hash } from '../dag/types';
import type { CommitData } from '../db/commit';
import type { WriteTransaction } from '../db/transaction-types';
import { collectClients, collectGroups, collectLogs, heartbeat } from './collect';
import { Tabs, type Tab } from './testing/tabs';

const DAY = 24 * 60 * 60 * 1000;

async function mark(tx: WriteTransaction): Promise<void> {
  await tx.put(`m/${tx.clientID}/${tx.mutationID}`, true);
  await tx.put('count', (((await tx.get('count')) as number | undefined) ?? 0) + 1);
}
const BUILDS = [{ mark }, { mark, unused: async () => {} }] as const;

type Action =
  | { readonly kind: 'open'; readonly build: 0 | 1 }
  | { readonly kind: 'mutate'; readonly tab: number; readonly times: number }
  | { readonly kind: 'sync'; readonly tab: number }
  /** A tab takes in another's logged mutations (it was told they were logged). */
  | { readonly kind: 'catchUp'; readonly tab: number; readonly from: number }
  | { readonly kind: 'close'; readonly tab: number }
  /** `logged`: the crash comes after the tab's log writes ended; otherwise in the middle of them (what was not logged may be lost). */
  | { readonly kind: 'crash'; readonly tab: number; readonly logged: boolean }
  | { readonly kind: 'server'; readonly tab: number }
  | { readonly kind: 'sleep'; readonly days: number }
  | { readonly kind: 'gc'; readonly tab: number }
  /** Tabs sync, mutate and collect at the same time (their store transactions interleave). */
  | { readonly kind: 'race'; readonly tabs: readonly number[] }
  /**
   * A tab stores a backlog (its commits below the head leave memory), another tab of its group (opened if
   * there is none) takes it in, maybe after a server round, and moves the group head with mutations of its
   * own; then the first tab mutates and syncs: its merge describes its stored commits from its database's
   * lists (viewChain) and reads the other's head only down to them (readChainKnowing).
   */
  | { readonly kind: 'backlog'; readonly tab: number; readonly other: number; readonly stored: number; readonly theirs: number; readonly server: boolean; readonly after: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('open' as const), build: fc.constantFrom(0 as const, 0 as const, 1 as const) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('mutate' as const), tab: fc.nat(5), times: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('sync' as const), tab: fc.nat(5) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('catchUp' as const), tab: fc.nat(5), from: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('close' as const), tab: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), tab: fc.nat(5), logged: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('server' as const), tab: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sleep' as const), days: fc.integer({ min: 1, max: 10 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('gc' as const), tab: fc.nat(5) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('race' as const), tabs: fc.array(fc.nat(5), { minLength: 2, maxLength: 4 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('backlog' as const),
      tab: fc.nat(5),
      other: fc.nat(5),
      stored: fc.integer({ min: 2, max: 12 }),
      theirs: fc.integer({ min: 0, max: 2 }),
      server: fc.boolean(),
      after: fc.integer({ min: 0, max: 3 }),
    }),
  },
);

/** The server: applies each client's mutations once, in id order, and pokes the whole state. */
class ModelServer {
  readonly state = new Map<string, ReadonlyJSONValue>();
  readonly lmids = new Map<string, number>();
  readonly groupOf = new Map<string, string>();
  version = 0;

  async round(tab: Tab): Promise<void> {
    const group = tab.client.clientGroupID;
    for (const m of tab.client.store.pendingMutations()) {
      const owner = this.groupOf.get(m.clientID);
      if (owner !== undefined && owner !== group) throw new Error(`client ${m.clientID} pushed under two groups`);
      if (m.id !== (this.lmids.get(m.clientID) ?? 0) + 1) continue;
      this.groupOf.set(m.clientID, group);
      this.lmids.set(m.clientID, m.id);
      this.state.set(`m/${m.clientID}/${m.id}`, true);
      this.state.set('count', ((this.state.get('count') as number | undefined) ?? 0) + 1);
    }
    this.version++;
    const acked: Record<string, number> = {};
    for (const [clientID, id] of this.lmids) if (this.groupOf.get(clientID) === group) acked[clientID] = id;
    await tab.client.store.applyServerUpdate({
      baseCookie: tab.client.store.cookie,
      cookie: this.version,
      lastMutationIDChanges: acked,
      patch: [{ op: 'clear' }, ...[...this.state].map(([key, value]) => ({ op: 'put' as const, key, value }))],
    });
  }
}

interface Live {
  readonly tab: Tab;
  readonly build: 0 | 1;
}

/** Every chunk the view reaches is in memory or in the shared store. */
async function assertViewIntact(live: Live): Promise<void> {
  const { memdag, perdag } = live.tab.client;
  await perdag.withRead(async (r) => {
    const seen = new Set<Hash>();
    const stack = [live.tab.client.viewHead()];
    while (stack.length > 0) {
      const hash = stack.pop()!;
      if (seen.has(hash)) continue;
      seen.add(hash);
      const chunk = memdag.isMemoryOnly(hash) ? (await memdag.withRead((m) => m.getChunk(hash)))! : await r.getChunk(hash);
      if (chunk === undefined) throw new Error(`chunk ${hash} of ${live.tab.id}'s view was collected`);
      stack.push(...chunk.refs);
    }
  });
}

/**
 * The database's lists (its pending mutations; a merge describes the view's stored commits from them, see
 * tab-merge's viewChain) are the view's chain as the dag holds it, read commit by commit from its head: a
 * chain a merge put together from them and from another head read only down to them (readChainKnowing) that
 * left out, doubled or misdescribed a commit shows here, whether or not the mutation's effect does.
 */
async function assertPendingIsChain(live: Live): Promise<void> {
  const { memdag, perdag, store } = live.tab.client;
  // Read around the view's cache, not through it: a read through it would bring stored commits back into memory.
  const locals = await perdag.withRead(async (r) => {
    const out: CommitData[] = [];
    let hash: Hash | null = live.tab.client.viewHead();
    while (hash !== null) {
      const chunk: Chunk | undefined = memdag.memoryChunk(hash) ?? (await r.getChunk(hash));
      if (chunk === undefined) throw new Error(`commit ${hash} of ${live.tab.id}'s view is missing`);
      const data = chunk.data as unknown as CommitData;
      out.push(data);
      hash = data.basisHash;
    }
    return out.reverse();
  });
  const snapshot = locals.shift()!;
  expect(snapshot.type).toBe('snapshot');
  const acked = snapshot.type === 'snapshot' ? snapshot.lastMutationIDs : {};
  const pending = locals.flatMap((d) =>
    d.type === 'local' && d.mutationID > (acked[d.clientID] ?? 0)
      ? [{ id: d.mutationID, clientID: d.clientID, name: d.mutatorName, args: d.mutatorArgs, timestamp: d.timestamp }]
      : [],
  );
  expect(store.pendingMutations()).toEqual(pending);
}

/** The view holds its snapshot plus each pending mutation exactly once. */
async function assertViewConsistent(live: Live): Promise<void> {
  const store = live.tab.client.store;
  const pending = store.pendingMutations();
  const keys = pending.map((m) => `${m.clientID}/${m.id}`);
  expect(new Set(keys).size).toBe(keys.length);
  const { count, marks } = await store.query(async (tx) => ({
    count: ((await tx.get('count')) as number | undefined) ?? 0,
    marks: (await tx.scan({ prefix: 'm/' }).keys().toArray()).length,
  }));
  expect(marks).toBe(count);
  // A view may be behind the server (its snapshot older): then it still holds what the server applied as pending, never twice.
  for (const m of pending) expect(await store.query((tx) => tx.has(`m/${m.clientID}/${m.id}`))).toBe(true);
}

/**
 * `slice`: a dropped chain is collected, and a view's long run of local
 * commits stored ahead of it, that many commits per write (1 and 2: slices
 * happen often).
 */
async function run(actions: readonly Action[], provider?: () => KvProvider, slice?: number): Promise<void> {
  const tabs = new Tabs({ frozen: true, ...(provider === undefined ? {} : { provider: provider() }), ...(slice === undefined ? {} : { releaseSliceCommits: slice, storeSliceCommits: slice }) });
  const server = new ModelServer();
  const live: Live[] = [];
  const made = new Set<string>();
  /** Mutations of tabs that crashed before their log writes ended: each reaches the server once or never. */
  const maybe = new Set<string>();
  const pick = (i: number) => (live.length === 0 ? undefined : live[i % live.length]);
  const mutate = async (l: Live, times: number) => {
    for (let i = 0; i < times; i++) {
      await l.tab.client.store.mutate('mark');
      const last = l.tab.client.store.pendingMutations().filter((m) => m.clientID === l.tab.id).at(-1)!;
      made.add(`${last.clientID}/${last.id}`);
    }
  };
  const reopenLost = async () => {
    for (const l of [...live]) {
      if (l.tab.lost.length === 0) continue;
      // The app reloads: its memory is gone, its log is what it leaves.
      await l.tab.client.whenLogged();
      tabs.crash(l.tab);
      live.splice(live.indexOf(l), 1);
      live.push({ tab: await tabs.open({ mutators: BUILDS[l.build] as never }), build: l.build });
    }
  };
  try {
    for (const a of actions) {
      const target = 'tab' in a ? pick(a.tab) : undefined;
      switch (a.kind) {
        case 'open':
          live.push({ tab: await tabs.open({ mutators: BUILDS[a.build] as never }), build: a.build });
          break;
        case 'mutate':
          if (target === undefined || target.tab.lost.length > 0) break;
          await mutate(target, a.times);
          break;
        case 'sync':
          if (target !== undefined) await target.tab.client.sync();
          break;
        case 'catchUp': {
          const from = pick(a.from);
          if (target !== undefined && from !== undefined && target.tab.lost.length === 0) await target.tab.client.catchUp(from.tab.id);
          break;
        }
        case 'close':
          if (target === undefined) break;
          live.splice(live.indexOf(target), 1);
          await tabs.close(target.tab);
          break;
        case 'crash':
          if (target === undefined) break;
          live.splice(live.indexOf(target), 1);
          if (a.logged) await target.tab.client.whenLogged();
          else {
            for (const m of target.tab.client.store.pendingMutations()) {
              const key = `${m.clientID}/${m.id}`;
              if (m.clientID === target.tab.id && made.delete(key)) maybe.add(key);
            }
          }
          tabs.crash(target.tab);
          break;
        case 'server':
          if (target !== undefined && target.tab.lost.length === 0) await server.round(target.tab);
          break;
        case 'sleep':
          await tabs.clock.advance(a.days * DAY);
          break;
        case 'race': {
          const racers = [...new Set(a.tabs.map(pick))].filter((l): l is Live => l !== undefined && l.tab.lost.length === 0);
          await Promise.all(
            racers.map(async (l, i) => {
              if (i % 3 === 1) await server.round(l.tab);
              if (i % 3 !== 1) await mutate(l, 1);
              await l.tab.client.sync();
              if (i === 1) await collectGroups(l.tab.client.perdag, await tabs.logKv());
            }),
          );
          break;
        }
        case 'backlog': {
          if (target === undefined || target.tab.lost.length > 0) break;
          await mutate(target, a.stored);
          await target.tab.client.sync();
          const peers = live.filter((l) => l !== target && l.build === target.build && l.tab.lost.length === 0);
          let other = peers[a.other % Math.max(1, peers.length)];
          if (other === undefined) live.push((other = { tab: await tabs.open({ mutators: BUILDS[target.build] as never }), build: target.build }));
          if (a.server) await server.round(other.tab);
          await mutate(other, a.theirs);
          await other.tab.client.sync();
          await mutate(target, a.after);
          await target.tab.client.sync();
          break;
        }
        case 'gc': {
          if (target === undefined) break;
          // Waking up: each tab's timers fire in some order; the collecting one has just beaten.
          await heartbeat(target.tab.client.perdag, target.tab.id, tabs.clock.now());
          await collectClients(target.tab.client.perdag, target.tab.id, tabs.clock.now());
          await collectGroups(target.tab.client.perdag, await tabs.logKv());
          await collectLogs(target.tab.client.perdag, await tabs.logKv());
          for (const l of live) if (l.tab.lost.length === 0 && !(await heartbeat(l.tab.client.perdag, l.tab.id, tabs.clock.now()))) l.tab.lost.push(l.tab.id);
          break;
        }
      }
      await reopenLost();
      for (const l of live) if (l.tab.lost.length === 0) await assertViewIntact(l);
      for (const l of live) if (l.tab.lost.length === 0) await assertViewConsistent(l);
      for (const l of live) if (l.tab.lost.length === 0) await assertPendingIsChain(l);
    }

    // The end: every tab stores what it has; each group left with something to push gets a tab that pushes it.
    for (const l of [...live]) {
      live.splice(live.indexOf(l), 1);
      await tabs.close(l.tab);
    }
    for (const build of [0, 1] as const) {
      const tab = await tabs.open({ mutators: BUILDS[build] as never });
      for (let i = 0; i < 3; i++) {
        await server.round(tab);
        await tab.client.sync();
      }
      expect(tab.client.store.pendingMutationCount).toBe(0);
      await tabs.close(tab);
    }
    const maybeArrived = [...maybe].filter((key) => server.state.get(`m/${key}`) === true).length;
    expect(server.state.get('count') ?? 0).toBe(made.size + maybeArrived);
    for (const key of made) expect(server.state.get(`m/${key}`)).toBe(true);
  } finally {
    await tabs.closeAll().catch(() => {});
  }
}

describe('tabs over one shared store, random lifecycles', () => {
  it('never collect what a view or a pending mutation needs, never lose or double a mutation', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 40 }), fc.constantFrom(1, 2, undefined), (actions, slice) => run(actions, undefined, slice)),
      { numRuns: 200 },
    );
  }, 120_000);

  it('the same over IndexedDB, where each tab has a connection of its own', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 30 }), fc.constantFrom(1, undefined), (actions, slice) => run(actions, () => new IDBKvProvider(new IDBFactory()), slice)),
      { numRuns: 25 },
    );
  }, 120_000);
});
