/** What one sustained server load measured: throughput and the CPU of every process, and how to print them. */
import { availableParallelism } from 'node:os';
import { fixed } from './measure';

export interface LoadFigures {
  readonly mutations: number;
  /** Batches/s: room versions, each with its own poke. */
  readonly batches: number;
  /** Storage commits/s (a room's batches that piled up while one was stored share one). */
  readonly commits: number;
  /** "% of a core" per process, e.g. "nodes 95/90/88%, PostgreSQL 60%, bench 40%". */
  readonly cpu: string;
  /** Each node of the load, in % of one core (all its threads). */
  readonly nodeCpu: readonly number[];
  /** PostgreSQL (all its processes), the bench process and the servers not in the load, in % of one core. */
  readonly postgresCpu: number;
  readonly benchCpu: number;
  readonly idleCpu: number;
  /** All those processes together, in % of one core (the machine has CORES × 100%). */
  readonly totalCpu: number;
  /** The whole machine meanwhile (these processes and any other work), in % of one core. */
  readonly machineCpu: number;
}

export const CORES = availableParallelism();

/** CPU µs of all those processes per acknowledged mutation: what decides the figure once the cores are the bound. */
export const perMutation = (f: LoadFigures): number => (f.totalCpu * 1e4) / f.mutations;
export const cpuPerMutation = (f: LoadFigures) => `${fixed(perMutation(f), 0)} µs`;

/** "190% of 200%": the CPU the run used against what the machine has; near the whole, the cores bound the figure. */
export const cpuBound = (f: LoadFigures) =>
  `${fixed(f.totalCpu, 0)}% of ${CORES * 100}% (machine ${fixed(f.machineCpu, 0)}%)${f.machineCpu >= CORES * 100 * 0.9 ? ', cores-bound' : ''}`;

/** Called synchronously at the exact start and stop of a load's sustained period (after the clients connected, before they close). */
export type WindowEdge = (at: 'start' | 'stop') => void;
