import { systemTimers } from '../clock';
import type { WorkerHostOptions } from '../engine/worker-host';
import { silentLogger } from '../logger';
import { newCounters } from '../stats';

/** A one-worker host's options for tests: the clock (`clock.now`, ms) and a spare core are the test's. */
export function testWorkerHostOptions(clock: { now: number }, options: Partial<WorkerHostOptions> = {}): WorkerHostOptions {
  return {
    mutatorsURL: undefined,
    mutatorsExport: 'mutators',
    maxMutationsPerPush: 1000,
    maxTombstones: 100,
    maxRoomBytes: 1 << 20,
    newClientsPerUser: 1000,
    sliceMs: 10,
    roomBudgetMs: 500,
    budgetWindowMs: 1000,
    workers: 1,
    mutatorTimeoutMs: 5000,
    timers: systemTimers,
    logger: silentLogger,
    counters: newCounters(),
    hasSpareCore: () => true,
    now: () => clock.now,
    ...options,
  };
}
