/**
 * The cluster rows of `npm run bench -- server` (BENCH_SERVER_ROWS=cluster): 50 rooms × 2 clients on
 * PostgreSQL with 1 node and with 3 nodes, in alternating rounds, each round twice:
 *  - uncapped: the nodes share the machine's cores with PostgreSQL and the bench (on a small machine the
 *    cores, not the code, bound the 3-node figure);
 *  - capped (BENCH_NODE_CPU, on by default when cgroups are writable): each node's server process in its
 *    own CPU cgroup with a quota, one small machine per node; PostgreSQL and the bench are not capped.
 * Every figure comes with each process's CPU, so a row says which resource bound it.
 */
import { openCpuCaps, type CpuCaps, type CpuGroup } from './cgroup-cpu';
import type { Throttling } from './cgroup-files';
import { CORES, cpuBound, cpuPerMutation, perMutation, type LoadFigures } from './load-figures';
import { fixed, median, printTable } from './measure';
import { AT_LIMIT, atCap, coresSaturated, nodeCapRule } from './node-cpu-cap';

export type ClusterLoad = 'one' | 'rooms' | 'clients';
const LOADS: readonly [ClusterLoad, string][] = [
  ['one', '1 node'],
  ['rooms', '3 nodes, rooms spread'],
  ['clients', '3 nodes, clients spread'],
];

export interface ClusterRig {
  /** The 3 PostgreSQL nodes' server processes (node runs server/cli.ts itself, so these are the servers, no wrapper); the 1-node load uses the first. */
  readonly nodePids: readonly number[];
  /** One measured run of a load, with the CPU of every process. */
  measure(load: ClusterLoad): Promise<LoadFigures>;
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

interface Measured {
  readonly round: number;
  readonly capped: boolean;
  readonly load: ClusterLoad;
  readonly f: LoadFigures;
  /** Per node of the load: the share of quota periods in which it was throttled. */
  readonly throttled: readonly number[];
}

/** The capped rows' cgroups: one per node, each holding that node's whole process. */
function capNodes(pids: readonly number[]): { caps: CpuCaps; groups: CpuGroup[] } | { unavailable: string } {
  const opened = openCpuCaps();
  if ('unavailable' in opened) return opened;
  try {
    const groups = pids.map((pid, i) => {
      const group = opened.caps.group(`node-${i + 1}`);
      group.add(pid);
      return group;
    });
    return { caps: opened.caps, groups };
  } catch (error) {
    opened.caps.close();
    return { unavailable: `cannot put the nodes in CPU cgroups (${opened.caps.where}): ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
}

const share = (after: Throttling, before: Throttling) => (after.throttled - before.throttled) / Math.max(1, after.periods - before.periods);
const pct = (v: number) => `${fixed(v, 0)}%`;
const ratioText = (values: number[]) => `median ${fixed(median(values), 2)}× (rounds ${values.map((v) => fixed(v, 2)).join(', ')})`;

export async function runClusterRows(rig: ClusterRig, options: ClusterOptions): Promise<void> {
  const loads = LOADS.filter(([key]) => options.loads.has(key));
  const capping = options.nodeCpu === 'off' ? { unavailable: 'BENCH_NODE_CPU=off' } : capNodes(rig.nodePids);
  let cap = typeof options.nodeCpu === 'number' ? options.nodeCpu : undefined;
  let rule = typeof options.nodeCpu === 'number' ? `per-node cap set by BENCH_NODE_CPU=${options.nodeCpu}` : undefined;
  if ('caps' in capping && cap === undefined && !options.loads.has('one')) rule = 'the cap rule needs the 1-node load (BENCH_CLUSTER_LOADS with one) or BENCH_NODE_CPU=<CPUs per node>';
  const measured: Measured[] = [];
  let threadCheck = '';
  try {
    for (const [key] of loads) await rig.warmUp(key);
    for (let round = 1; round <= options.rounds; round++) {
      for (const capped of [false, true]) {
        if (capped && !('caps' in capping && cap !== undefined)) continue;
        const groups = 'caps' in capping ? capping.groups : [];
        for (const g of groups) g.setCpus(capped ? cap : undefined, options.periodMs === undefined ? undefined : options.periodMs * 1000);
        for (const [load] of loads) {
          const inLoad = load === 'one' ? groups.slice(0, 1) : groups;
          const before = inLoad.map((g) => g.throttling());
          const f = await rig.measure(load);
          measured.push({ round, capped, load, f, throttled: inLoad.map((g, i) => share(g.throttling(), before[i]!)) });
          if (!capped && load === 'one' && cap === undefined && options.nodeCpu === 'auto' && 'caps' in capping) {
            const node = f.nodeCpu[0]!;
            ({ cpus: cap, rule } = nodeCapRule({ node, rest: f.totalCpu - node }, CORES, rig.nodePids.length));
            rule = `${rule} (round ${round}'s; rest: PostgreSQL ${fixed(f.postgresCpu, 0)}%, bench ${fixed(f.benchCpu, 0)}%, servers not in the load ${fixed(f.idleCpu, 0)}%)`;
          }
        }
      }
    }
    if ('caps' in capping) {
      // Every thread of every node is in its group (those started after it joined too).
      const threads = capping.groups.map((g, i) => g.threads(rig.nodePids[i]!));
      const stray = threads.flatMap((t, i) => t.outside.map((tid) => `node ${i + 1} thread ${tid}`));
      threadCheck =
        stray.length > 0
          ? `WARNING: threads outside their node's CPU cgroup: ${stray.join(', ')}`
          : `after the rounds every thread of each node (${threads.map((t) => t.all).join(', ')}) was in its node's group`;
    }
  } finally {
    if ('caps' in capping) capping.caps.close();
  }
  print(measured, options, capping, cap, rule);
  if (threadCheck !== '') console.log(threadCheck);
}

function print(measured: Measured[], options: ClusterOptions, capping: { caps: CpuCaps; groups: CpuGroup[] } | { unavailable: string }, cap: number | undefined, rule: string | undefined): void {
  const one = (m: Measured) => measured.find((o) => o.round === m.round && o.capped === m.capped && o.load === 'one');
  const label = (m: Measured) => `round ${m.round}: ${m.capped ? `${cap} CPU per node, ` : ''}${LOADS.find(([key]) => key === m.load)![1]}`;
  const budget = (m: Measured) =>
    m.capped ? `${m.f.nodeCpu.map((c) => fixed(c, 0)).join('/')}% of ${fixed(cap! * 100, 0)}%, throttled ${m.throttled.map((t) => fixed(100 * t, 0)).join('/')}%` : '';
  printTable(
    `server on PostgreSQL: ${options.what} (target: 3 nodes ≥ 1.5× 1 node)`,
    ['load', 'mutations/s', 'batches/s', 'commits/s', 'vs 1 node', 'CPU/mutation', 'CPU used', 'nodes vs their cap', 'CPU (% of one core per process; a node: main thread + other threads)'],
    measured.map((m) => {
      const base = one(m);
      return [label(m), fixed(m.f.mutations, 0), fixed(m.f.batches, 0), fixed(m.f.commits, 0), base === undefined ? '' : `${fixed(m.f.mutations / base.f.mutations, 2)}×`, cpuPerMutation(m.f), cpuBound(m.f), budget(m), m.f.cpu];
    }),
  );
  const of = (capped: boolean, load: ClusterLoad) => measured.filter((m) => m.capped === capped && m.load === load);
  const mid = (ms: Measured[], value: (f: LoadFigures) => number) => fixed(median(ms.map((m) => value(m.f))), 0);
  // Where each mutation's CPU goes: what sizes a node (its share) and PostgreSQL (its share) for a given rate.
  const micros = (usage: (f: LoadFigures) => number) => (f: LoadFigures) => (usage(f) * 1e4) / f.mutations;
  printTable(
    'CPU per acknowledged mutation (µs, median over the rounds)',
    ['load', 'nodes', 'PostgreSQL', 'bench', 'all'],
    [false, true].flatMap((capped) =>
      LOADS.map(([key, name]): [string, Measured[]] => [`${capped ? `${cap} CPU per node, ` : ''}${name}`, of(capped, key)])
        .filter(([, ms]) => ms.length > 0)
        .map(([name, ms]) => [name, mid(ms, micros((f) => f.nodeCpu.reduce((a, b) => a + b, 0))), mid(ms, micros((f) => f.postgresCpu)), mid(ms, micros((f) => f.benchCpu)), mid(ms, perMutation)]),
    ),
  );
  const ones = of(false, 'one');
  if (ones.length > 0) {
    const oneRate = median(ones.map((m) => m.f.mutations));
    console.log(
      `uncapped 1 node: median ${mid(ones, perMutation)} µs CPU per mutation (all processes), ${mid(ones, (f) => f.totalCpu)}% of the ${CORES * 100}% of ${CORES} cores used ` +
        `(the whole machine ${mid(ones, (f) => f.machineCpu)}%, other work on it included): node ${mid(ones, (f) => f.nodeCpu[0]!)}%, PostgreSQL ${mid(ones, (f) => f.postgresCpu)}%, bench ${mid(ones, (f) => f.benchCpu)}%.`,
    );
    for (const [key, name] of LOADS.slice(1)) {
      const ms = of(false, key);
      if (ms.length === 0) continue;
      // All cores at this CPU per mutation: the most these cores allow, however well the nodes scale.
      const ceiling = (CORES * 1e6) / median(ms.map((m) => perMutation(m.f))) / oneRate;
      console.log(
        `uncapped ${name}: ${ratioText(ms.map((m) => m.f.mutations / one(m)!.f.mutations))} of 1 node; median ${mid(ms, perMutation)} µs CPU per mutation, ${mid(ms, (f) => f.totalCpu)}% used (machine ${mid(ms, (f) => f.machineCpu)}%); ` +
          `with all ${CORES * 100}% at that cost it would reach ${fixed(ceiling, 2)}× of 1 node: ${coresSaturated(median(ms.map((m) => m.f.machineCpu)), CORES) ? 'the cores, not the code, bound it' : 'the cores were not full'}.`,
      );
    }
  }
  for (const m of measured) {
    if (m.capped && coresSaturated(m.f.machineCpu, CORES)) console.log(`WARNING: ${label(m)}: the machine was at ${pct(m.f.machineCpu)} of ${CORES * 100}%: cores-bound again, not a per-node figure.`);
    if (m.f.benchCpu >= AT_LIMIT * 100) console.log(`WARNING: ${label(m)}: the bench process used ${pct(m.f.benchCpu)} of its one thread: the load generator bounds it.`);
  }
  if ('unavailable' in capping) {
    console.log(`capped rows (each node on its own CPU budget): unavailable: ${capping.unavailable}`);
    return;
  }
  const period = options.periodMs === undefined ? 'the kernel\'s default period' : `a ${options.periodMs} ms period`;
  console.log(`capped rows: each node's server process (all its threads) in its own CPU cgroup under ${capping.caps.where} (quota per ${period}), PostgreSQL and the bench not capped; ${rule ?? ''}`);
  if (cap === undefined) return;
  const capOnes = of(true, 'one');
  if (capOnes.length > 0) {
    const node = median(capOnes.map((m) => m.f.nodeCpu[0]!));
    console.log(
      atCap(node, cap)
        ? `capped 1 node: the node used ${fixed(node, 1)}% of its ${fixed(cap * 100, 0)}% (median), throttled in ${fixed(100 * median(capOnes.map((m) => m.throttled[0]!)), 0)}% of its periods: its CPU budget bounds the figure.`
        : `WARNING: capped 1 node: the node used ${fixed(node, 1)}% of its ${fixed(cap * 100, 0)}% (under ${AT_LIMIT * 100}%): not bound by its CPU budget; PostgreSQL (${mid(capOnes, (f) => f.postgresCpu)}%), the bench (${mid(capOnes, (f) => f.benchCpu)}%) or waits bound it.`,
    );
  }
  for (const [key, name] of LOADS.slice(1)) {
    const ms = of(true, key);
    if (ms.length === 0 || capOnes.length === 0) continue;
    const nodes = ms[0]!.f.nodeCpu.map((_, i) => median(ms.map((m) => m.f.nodeCpu[i]!)));
    const machine = median(ms.map((m) => m.f.machineCpu));
    const bound = coresSaturated(machine, CORES)
      ? 'WARNING: the machine is saturated, so the cores bound it again (nodes may not get even their cap)'
      : nodes.every((n) => atCap(n, cap))
        ? 'every node at its cap: the nodes\' CPU budgets bound it'
        : 'WARNING: not every node at its cap with cores to spare: PostgreSQL, the bench or waits bound it';
    console.log(
      `capped ${name}: ${ratioText(ms.map((m) => m.f.mutations / one(m)!.f.mutations))} of 1 node; nodes ${nodes.map((n) => fixed(n, 0)).join('/')}% of ${fixed(cap * 100, 0)}% each, ` +
        `PostgreSQL ${mid(ms, (f) => f.postgresCpu)}%, bench ${mid(ms, (f) => f.benchCpu)}%, machine ${fixed(machine, 0)}% of ${CORES * 100}% (${coresSaturated(machine, CORES) ? 'saturated' : 'below saturation'}): ${bound}.`,
    );
  }
}
