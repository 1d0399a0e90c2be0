/**
 * The CPU budget per node of the capped cluster rows, by a stated rule, and
 * the checks that say which resource bound a figure. CPU figures are in % of
 * one core (a 2-core machine has 200%).
 */

/** The share of the machine's cores the capped 3-node run is planned to use; the rest is margin for other work on the machine and for imperfect scaling. */
export const PLANNED_SHARE = 0.8;
/** Caps are multiples of this many CPUs. */
export const CAP_STEP = 0.05;
/** At or above this share of its budget a process (or the machine) counts as at its limit. */
export const AT_LIMIT = 0.9;

/** The CPU split of the uncapped 1-node run. */
export interface OneNodeSplit {
  /** The node serving the load. */
  readonly node: number;
  /** Everything else that run used: PostgreSQL, the bench, the servers not in the load. */
  readonly rest: number;
}

export interface NodeCap {
  /** CPUs per node, or undefined when the machine is too small for any step. */
  readonly cpus: number | undefined;
  /** The rule with its numbers, to print. */
  readonly rule: string;
}

/**
 * The largest per-node cap c (a multiple of CAP_STEP) at which `nodes` nodes plus what they drive still fit in
 * PLANNED_SHARE of the cores: with each node held at c, throughput is at most nodes × c / node of the 1-node run's,
 * and the rest (PostgreSQL, bench) grows with throughput, so the run needs nodes × c × (node + rest) / node.
 */
export function nodeCapRule(split: OneNodeSplit, cores: number, nodes: number): NodeCap {
  const budget = PLANNED_SHARE * cores * 100;
  const raw = (budget * split.node) / (nodes * (split.node + split.rest)) / 100;
  // The small epsilon keeps an exact multiple (0.3 from float arithmetic as 0.29999…) from dropping a step.
  const steps = Math.floor(raw / CAP_STEP + 1e-9);
  const cpus = steps > 0 ? Number((steps * CAP_STEP).toFixed(2)) : undefined;
  const rule =
    `per-node cap = the largest multiple of ${CAP_STEP} CPU with ${nodes} × cap × (node + rest) / node ≤ ${Math.round(PLANNED_SHARE * 100)}% of ${cores * 100}%, ` +
    `from the uncapped 1-node run (node ${split.node.toFixed(0)}%, rest ${split.rest.toFixed(0)}%): ${raw.toFixed(3)} → ${cpus === undefined ? 'none (the machine is too small)' : `${cpus} CPU`}`;
  return { cpus, rule };
}

/** True when a process used at least AT_LIMIT of a budget of `cpus` CPUs (its usage in % of one core). */
export const atCap = (usage: number, cpus: number): boolean => usage + 1e-9 >= AT_LIMIT * cpus * 100;

/** True when the machine's cores are the bound: its busy CPU at or above AT_LIMIT of all of them. */
export const coresSaturated = (machineUsage: number, cores: number): boolean => machineUsage + 1e-9 >= AT_LIMIT * cores * 100;
