import { availableParallelism } from 'node:os';
import type { Timers } from '../clock';
import { conformanceMutators } from '../conformance-mutators';
import type { ServerOptions } from '../index';
import {
  DEFAULT_MAX_MUTATIONS_PER_PUSH,
  DEFAULT_MAX_ROOM_BYTES,
  DEFAULT_MAX_TOMBSTONES_PER_ROOM,
  DEFAULT_NEW_CLIENTS_PER_USER,
  DEFAULT_MUTATOR_TIMEOUT_MS,
  DEFAULT_ROOM_CPU_BUDGET_MS,
  DEFAULT_SLICE_MS,
  MAX_TIMER_MS,
  ROOM_CPU_BUDGET_WINDOW_MS,
} from '../limits';
import type { Logger } from '../logger';
import type { ServerCounters } from '../stats';
import type { EngineHost } from './engine-types';
import { LocalEngineHost } from './local-host';
import { timerGuard, type MutationGuard } from './mutation-guard';
import { realPaceClock, ThreadPace } from './pacer';
import { WorkerEngineHost } from './worker-host';

/**
 * Rooms in worker threads when the mutators come as a module, else in this
 * thread (under `guardFor`'s guards when given, else a timer's).
 */
export function createEngineHost(options: ServerOptions, timers: Timers, logger: Logger, counters: ServerCounters, guardFor?: (roomID: string) => MutationGuard): EngineHost {
  const engine = {
    maxMutationsPerPush: options.maxMutationsPerPush ?? DEFAULT_MAX_MUTATIONS_PER_PUSH,
    maxTombstones: options.maxTombstonesPerRoom ?? DEFAULT_MAX_TOMBSTONES_PER_ROOM,
    maxRoomBytes: options.maxRoomBytes ?? DEFAULT_MAX_ROOM_BYTES,
    newClientsPerUser: options.newClientsPerUser ?? DEFAULT_NEW_CLIENTS_PER_USER,
  };
  const pace = { sliceMs: options.sliceMs ?? DEFAULT_SLICE_MS, roomBudgetMs: options.roomCpuBudgetMs ?? DEFAULT_ROOM_CPU_BUDGET_MS, windowMs: ROOM_CPU_BUDGET_WINDOW_MS };
  const mutatorTimeoutMs = options.mutatorTimeoutMs ?? DEFAULT_MUTATOR_TIMEOUT_MS;
  if (!(mutatorTimeoutMs >= 1 && mutatorTimeoutMs <= MAX_TIMER_MS)) throw new RangeError(`mutatorTimeoutMs must be from 1 to ${MAX_TIMER_MS}, not ${mutatorTimeoutMs}`);
  if (options.mutatorsModule !== undefined) {
    if (options.mutators !== undefined) throw new TypeError('Give mutators or mutatorsModule, not both');
    return new WorkerEngineHost({
      ...engine,
      mutatorsURL: options.mutatorsModule.url,
      mutatorsExport: options.mutatorsModule.exportName ?? 'mutators',
      sliceMs: pace.sliceMs,
      roomBudgetMs: pace.roomBudgetMs,
      budgetWindowMs: pace.windowMs,
      workers: options.roomWorkers ?? Math.max(2, availableParallelism()),
      mutatorTimeoutMs,
      timers,
      logger,
      counters,
      ...(options.spinWait === false ? { spinWait: false } : {}),
      ...(options.hasSpareCore === undefined ? {} : { hasSpareCore: options.hasSpareCore }),
    });
  }
  const guard = timerGuard(timers, mutatorTimeoutMs);
  return new LocalEngineHost({ ...engine, mutators: { ...conformanceMutators, ...options.mutators } }, new ThreadPace(realPaceClock, pace), guardFor ?? (() => guard));
}
