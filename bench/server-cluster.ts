/**
 * The cluster rows of `npm run bench -- server` (BENCH_SERVER_ROWS=cluster): 50 rooms × 2 clients on
 * PostgreSQL with 1 node and with 3 nodes, in alternating rounds, each round twice:
 *  - uncapped: the nodes share the machine's cores with PostgreSQL and the bench, in the cgroup they were
 *    started in, exactly as with BENCH_NODE_CPU=off (on a small machine the cores, not the code, bound the
 *    3-node figure);
 *  - capped (BENCH_NODE_CPU, on by default when cgroups are writable): each node's server process (and its
 *    child processes) moved into its own CPU cgroup with a quota for these rows only, one small machine per
 *    node, then back; PostgreSQL and the bench are not capped.
 * Every figure comes with each process's CPU over the sustained period alone, so a row says which resource bound it.
 */
import { openCpuCaps, type CpuCaps, type CpuGroup } from './cgroup-cpu';
import type { Throttling } from './cgroup-files';
import { CORES, cpuBound, cpuPerMutation, perMutation, type LoadFigures, type WindowEdge } from './load-figures';
import { fixed, median, printTable } from './measure';
import { AT_LIMIT, atCap, coresSaturated, nodeCapRule } from './node-cpu-cap';

export type ClusterLoad = 'one' | 'rooms' | 'clients';
export const LOADS: readonly [ClusterLoad, string][] = [
  ['one', '1 node'],
  ['rooms', '3 nodes, rooms spread'],
  ['clients', '3 nodes, clients spread'],
];

export interface ClusterRig {
  /** The 3 PostgreSQL nodes' server processes (node runs server/cli.ts itself, so these are the servers, no wrapper); the 1-node load uses the first. */
  readonly nodePids: readonly number[];
  /** One measured run of a load, with the CPU of every process over its sustained period; `edge` is called at that period's start and stop. */
  measure(load: ClusterLoad, edge?: WindowEdge): Promise<LoadFigures>;
  /** One unmeasured run (the nodes' first seconds under load go to V8 compiling their hot code). */
  warmUp(load: ClusterLoad): Promise<void>;
}

/** BENCH_NODE_CPU: unset or `auto` (the cap rule), `off` (uncapped rows only), or CPUs per node (e.g. 0.3). */
export type NodeCpuSetting = 'auto' | 'off' | number;

export function parseNodeCpu(text: string | undefined): NodeCpuSetting {
  if (text === undefined || text === '' || text === 'auto') return 'auto';
  if (text === 'off' || text === '0') return 'off';
  const cpus = Number(text);
  if (!Number.isFinite(cpus) || cpus <= 0) throw new Error(`BENCH_NODE_CPU must be auto, off or a number of CPUs per node, not ${JSON.stringify(text)}`);
  return cpus;
}

/** BENCH_NODE_CPU_PERIOD_MS: unset (the kernel's default period) or milliseconds from 1 to 1000 (the kernel's limits for a quota period). */
export function parseNodeCpuPeriodMs(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const ms = Number(text);
  if (!Number.isFinite(ms) || ms < 1 || ms > 1000) throw new Error(`BENCH_NODE_CPU_PERIOD_MS must be a number of milliseconds from 1 to 1000, not ${JSON.stringify(text)}`);
  return ms;
}

export interface ClusterOptions {
  readonly rounds: number;
  /** Which loads each round runs (BENCH_CLUSTER_LOADS). */
  readonly loads: ReadonlySet<string>;
  readonly nodeCpu: NodeCpuSetting;
  /** BENCH_NODE_CPU_PERIOD_MS: the period a cap's quota is counted in (undefined: the kernel's default, 100 ms). */
  readonly periodMs: number | undefined;
  /** "50 rooms × 2 clients, sustained, 3 s, 8 in flight per client". */
  readonly what: string;
}

export interface Measured {
  readonly round: number;
  readonly capped: boolean;
  readonly load: ClusterLoad;
  readonly f: LoadFigures;
  /** Capped rows, per node of the load, over the sustained period: the share of quota periods in which it was throttled. */
  readonly throttled: readonly number[];
  /** Capped rows, per node of the load: its group's own CPU counter in % of one core, when the hierarchy has one. */
  readonly groupCpu: readonly (number | undefined)[];
}

/** What the capped rows ran with, or why there were none. */
export type CapState =
  | { readonly unavailable: string }
  | {
      readonly where: string;
      /** CPUs per node; undefined when the rule gave none (then no capped rows ran). */
      readonly cap: number | undefined;
      /** Where the cap came from: the rule with its numbers, or BENCH_NODE_CPU. */
      readonly rule: string;
      readonly periodMs: number | undefined;
    };

const share = (after: Throttling, before: Throttling) => (after.throttled - before.throttled) / Math.max(1, after.periods - before.periods);
const pct = (v: number) => `${fixed(v, 0)}%`;
const ratioText = (values: number[]) => `median ${fixed(median(values), 2)}× (rounds ${values.map((v) => fixed(v, 2)).join(', ')})`;

export async function runClusterRows(rig: ClusterRig, options: ClusterOptions): Promise<void> {
  const loads = LOADS.filter(([key]) => options.loads.has(key));
  let caps: CpuCaps | undefined;
  let groups: CpuGroup[] = [];
  let unavailable: string | undefined;
  if (options.nodeCpu === 'off') unavailable = 'BENCH_NODE_CPU=off';
  else {
    const opened = openCpuCaps();
    if ('unavailable' in opened) unavailable = opened.unavailable;
    else {
      caps = opened.caps;
      if (caps.swept !== '') console.log(caps.swept);
      try {
        groups = rig.nodePids.map((_, i) => caps!.group(`node-${i + 1}`));
      } catch (error) {
        caps.close();
        unavailable = `cannot make the nodes' CPU cgroups (${caps.where}): ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
        caps = undefined;
      }
    }
  }
  let cap = typeof options.nodeCpu === 'number' ? options.nodeCpu : undefined;
  let rule = typeof options.nodeCpu === 'number' ? `cap set by BENCH_NODE_CPU=${options.nodeCpu}` : 'cap rule: no uncapped 1-node row in round 1';
  if (caps !== undefined && cap === undefined && !options.loads.has('one')) rule = 'the cap rule needs the 1-node load (BENCH_CLUSTER_LOADS with one) or BENCH_NODE_CPU=<CPUs per node>';
  const periodUs = options.periodMs === undefined ? undefined : options.periodMs * 1000;
  const measured: Measured[] = [];
  const threadChecks: string[] = [];
  try {
    for (const [key] of loads) await rig.warmUp(key);
    for (let round = 1; round <= options.rounds; round++) {
      for (const capped of [false, true]) {
        if (capped && (caps === undefined || cap === undefined)) continue;
        // The nodes are in their groups for the capped rows only; the uncapped rows run as with BENCH_NODE_CPU=off.
        if (capped) for (const [i, g] of groups.entries()) (g.setCpus(cap, periodUs), g.add(rig.nodePids[i]!));
        try {
          for (const [load] of loads) {
            const inLoad = load === 'one' ? groups.slice(0, 1) : groups;
            const at: Record<'start' | 'stop', { throttling: Throttling[]; usage: (number | undefined)[]; time: number }> = { start: { throttling: [], usage: [], time: 0 }, stop: { throttling: [], usage: [], time: 0 } };
            const edge: WindowEdge | undefined = capped ? (e) => (at[e] = { throttling: inLoad.map((g) => g.throttling()), usage: inLoad.map((g) => g.usageSeconds()), time: performance.now() }) : undefined;
            const f = await rig.measure(load, edge);
            const wall = (at.stop.time - at.start.time) / 1000;
            measured.push({
              round,
              capped,
              load,
              f,
              throttled: capped ? at.stop.throttling.map((t, i) => share(t, at.start.throttling[i]!)) : [],
              groupCpu: capped ? at.stop.usage.map((u, i) => (u === undefined || at.start.usage[i] === undefined ? undefined : (100 * (u - at.start.usage[i]!)) / wall)) : [],
            });
            // The cap is derived once, from round 1's uncapped 1-node split; when the rule gives none, no round is capped.
            if (!capped && load === 'one' && round === 1 && options.nodeCpu === 'auto' && caps !== undefined) {
              const node = f.nodeCpu[0]!;
              ({ cpus: cap, rule } = nodeCapRule({ node, rest: f.totalCpu - node }, CORES, rig.nodePids.length));
              rule = `${rule} (round 1's; rest: PostgreSQL ${fixed(f.postgresCpu, 0)}%, bench ${fixed(f.benchCpu, 0)}%, servers not in the load ${fixed(f.idleCpu, 0)}%)`;
            }
          }
          if (capped) {
            // Every thread of every node and of its child processes is in its group (those started after it joined too).
            const threads = groups.map((g, i) => g.threads(rig.nodePids[i]!));
            const stray = threads.flatMap((t, i) => t.outside.map((tid) => `node ${i + 1} thread ${tid}`));
            threadChecks.push(stray.length > 0 ? `round ${round}: WARNING: threads outside their node's CPU cgroup: ${stray.join(', ')}` : `round ${round}: ${threads.map((t) => t.all).join(', ')}`);
          }
        } finally {
          if (capped) for (const g of groups) g.release();
        }
      }
    }
  } finally {
    caps?.close();
  }
  const state: CapState = caps === undefined ? { unavailable: unavailable! } : { where: caps.where, cap, rule, periodMs: options.periodMs };
  printTables(measured, options, state);
  for (const line of clusterChecks(measured, state, CORES)) console.log(line);
  if (threadChecks.length > 0) console.log(`after each capped round's rows, threads of each node and its child processes, all in its group unless a warning says otherwise: ${threadChecks.join('; ')}`);
}

const capLabel = (state: CapState) => ('cap' in state && state.cap !== undefined ? `${state.cap} CPU per node, ` : '');
const label = (m: Measured, state: CapState) => `round ${m.round}: ${m.capped ? capLabel(state) : ''}${LOADS.find(([key]) => key === m.load)![1]}`;
const one = (measured: readonly Measured[], m: Measured) => measured.find((o) => o.round === m.round && o.capped === m.capped && o.load === 'one');
const of = (measured: readonly Measured[], capped: boolean, load: ClusterLoad) => measured.filter((m) => m.capped === capped && m.load === load);
const mid = (ms: readonly Measured[], value: (f: LoadFigures) => number) => fixed(median(ms.map((m) => value(m.f))), 0);
/** A node's CPU against its cap: its group's own counter when there is one, else its process and child processes from /proc. */
const nodeUsage = (m: Measured, i: number) => m.groupCpu[i] ?? m.f.nodeCpu[i]!;

function printTables(measured: readonly Measured[], options: ClusterOptions, state: CapState): void {
  const cap = 'cap' in state ? state.cap : undefined;
  const budget = (m: Measured) =>
    m.capped
      ? `${m.f.nodeCpu.map((c) => fixed(c, 0)).join('/')}% of ${fixed(cap! * 100, 0)}%${m.groupCpu.some((g) => g !== undefined) ? ` (group counters ${m.groupCpu.map((g) => (g === undefined ? '-' : fixed(g, 0))).join('/')}%)` : ''}, throttled ${m.throttled.map((t) => fixed(100 * t, 0)).join('/')}%`
      : '';
  printTable(
    `server on PostgreSQL: ${options.what} (target: 3 nodes ≥ 1.5× 1 node)`,
    ['load', 'mutations/s', 'batches/s', 'commits/s', 'vs 1 node', 'CPU/mutation', 'CPU used', 'nodes vs their cap', 'CPU (% of one core per process, sustained period only; a node: main thread + other threads + child processes)'],
    measured.map((m) => {
      const base = one(measured, m);
      return [label(m, state), fixed(m.f.mutations, 0), fixed(m.f.batches, 0), fixed(m.f.commits, 0), base === undefined ? '' : `${fixed(m.f.mutations / base.f.mutations, 2)}×`, cpuPerMutation(m.f), cpuBound(m.f), budget(m), m.f.cpu];
    }),
  );
  // Where each mutation's CPU goes: what sizes a node (its share) and PostgreSQL (its share) for a given rate.
  const micros = (usage: (f: LoadFigures) => number) => (f: LoadFigures) => (usage(f) * 1e4) / f.mutations;
  printTable(
    'CPU per acknowledged mutation (µs, median over the rounds)',
    ['load', 'nodes', 'PostgreSQL', 'bench', 'all'],
    [false, true].flatMap((capped) =>
      LOADS.map(([key, name]): [string, Measured[]] => [`${capped ? capLabel(state) : ''}${name}`, of(measured, capped, key)])
        .filter(([, ms]) => ms.length > 0)
        .map(([name, ms]) => [name, mid(ms, micros((f) => f.nodeCpu.reduce((a, b) => a + b, 0))), mid(ms, micros((f) => f.postgresCpu)), mid(ms, micros((f) => f.benchCpu)), mid(ms, perMutation)]),
    ),
  );
}

/** The lines under the tables: the uncapped and capped ratios with every process's CPU, and what bound each (warnings where the figure is not what it claims). */
export function clusterChecks(measured: readonly Measured[], state: CapState, cores: number): string[] {
  const lines: string[] = [];
  const ones = of(measured, false, 'one');
  if (ones.length > 0) {
    const oneRate = median(ones.map((m) => m.f.mutations));
    lines.push(
      `uncapped 1 node: median ${mid(ones, perMutation)} µs CPU per mutation (all processes), ${mid(ones, (f) => f.totalCpu)}% of the ${cores * 100}% of ${cores} cores used ` +
        `(the whole machine ${mid(ones, (f) => f.machineCpu)}%, other work on it included): node ${mid(ones, (f) => f.nodeCpu[0]!)}%, PostgreSQL ${mid(ones, (f) => f.postgresCpu)}%, bench ${mid(ones, (f) => f.benchCpu)}%.`,
    );
    for (const [key, name] of LOADS.slice(1)) {
      const ms = of(measured, false, key);
      if (ms.length === 0) continue;
      // All cores at this CPU per mutation: the most these cores allow, however well the nodes scale.
      const ceiling = (cores * 1e6) / median(ms.map((m) => perMutation(m.f))) / oneRate;
      const nodes = ms[0]!.f.nodeCpu.map((_, i) => fixed(median(ms.map((m) => m.f.nodeCpu[i]!)), 0));
      lines.push(
        `uncapped ${name}: ${ratioText(ms.map((m) => m.f.mutations / one(measured, m)!.f.mutations))} of 1 node; nodes ${nodes.join('/')}%, PostgreSQL ${mid(ms, (f) => f.postgresCpu)}%, bench ${mid(ms, (f) => f.benchCpu)}%; ` +
          `median ${mid(ms, perMutation)} µs CPU per mutation, ${mid(ms, (f) => f.totalCpu)}% used (machine ${mid(ms, (f) => f.machineCpu)}%); ` +
          `with all ${cores * 100}% at that cost it would reach ${fixed(ceiling, 2)}× of 1 node: ${coresSaturated(median(ms.map((m) => m.f.machineCpu)), cores) ? 'the cores, not the code, bound it' : 'the cores were not full'}.`,
      );
    }
  }
  for (const m of measured) {
    if (m.capped && coresSaturated(m.f.machineCpu, cores)) lines.push(`WARNING: ${label(m, state)}: the machine was at ${pct(m.f.machineCpu)} of ${cores * 100}%: cores-bound again, not a per-node figure.`);
    if (m.f.benchCpu >= AT_LIMIT * 100) lines.push(`WARNING: ${label(m, state)}: the bench process used ${pct(m.f.benchCpu)} of its one thread: the load generator bounds it.`);
  }
  if ('unavailable' in state) {
    lines.push(`capped rows (each node on its own CPU budget): unavailable: ${state.unavailable}`);
    return lines;
  }
  const period = state.periodMs === undefined ? "the kernel's default period" : `a ${state.periodMs} ms period`;
  lines.push(`capped rows: each node's server process (all its threads and child processes) in its own CPU cgroup under ${state.where} for those rows only (quota per ${period}), PostgreSQL and the bench not capped; ${state.rule}`);
  const cap = state.cap;
  if (cap === undefined) {
    lines.push('no capped rows: the cap rule gave no cap in round 1, so no round ran capped.');
    return lines;
  }
  const capOnes = of(measured, true, 'one');
  if (capOnes.length > 0) {
    const node = median(capOnes.map((m) => nodeUsage(m, 0)));
    lines.push(
      atCap(node, cap)
        ? `capped 1 node: the node used ${fixed(node, 1)}% of its ${fixed(cap * 100, 0)}% (median), throttled in ${fixed(100 * median(capOnes.map((m) => m.throttled[0]!)), 0)}% of its periods; PostgreSQL ${mid(capOnes, (f) => f.postgresCpu)}%, bench ${mid(capOnes, (f) => f.benchCpu)}%: its CPU budget bounds the figure.`
        : `WARNING: capped 1 node: the node used ${fixed(node, 1)}% of its ${fixed(cap * 100, 0)}% (under ${AT_LIMIT * 100}%): not bound by its CPU budget; PostgreSQL (${mid(capOnes, (f) => f.postgresCpu)}%), the bench (${mid(capOnes, (f) => f.benchCpu)}%) or waits bound it.`,
    );
  }
  for (const [key, name] of LOADS.slice(1)) {
    const ms = of(measured, true, key);
    if (ms.length === 0 || capOnes.length === 0) continue;
    const nodes = ms[0]!.f.nodeCpu.map((_, i) => median(ms.map((m) => nodeUsage(m, i))));
    const machine = median(ms.map((m) => m.f.machineCpu));
    const bound = coresSaturated(machine, cores)
      ? 'WARNING: the machine is saturated, so the cores bound it again (nodes may not get even their cap)'
      : nodes.every((n) => atCap(n, cap))
        ? "every node at its cap: the nodes' CPU budgets bound it"
        : 'WARNING: not every node at its cap with cores to spare: PostgreSQL, the bench or waits bound it';
    lines.push(
      `capped ${name}: ${ratioText(ms.map((m) => m.f.mutations / one(measured, m)!.f.mutations))} of 1 node; nodes ${nodes.map((n) => fixed(n, 0)).join('/')}% of ${fixed(cap * 100, 0)}% each, ` +
        `PostgreSQL ${mid(ms, (f) => f.postgresCpu)}%, bench ${mid(ms, (f) => f.benchCpu)}%, machine ${fixed(machine, 0)}% of ${cores * 100}% (${coresSaturated(machine, cores) ? 'saturated' : 'below saturation'}): ${bound}.`,
    );
  }
  return lines;
}
