/** Counters the admin API reports. */
export interface ServerCounters {
  /** Batches stored with changes: each a room version of its own, poked on its own. */
  batches: number;
  /** Storage commits of those batches (a room's batches that piled up while one was stored share one). */
  commits: number;
  mutations: number;
  failedMutations: number;
  pokes: number;
  connects: number;
  rejectedConnects: number;
  invalidMessages: number;
  /** Times a connection was paused for going over its rate limit. */
  throttled: number;
  idleClosed: number;
  /** Worker threads stopped because a mutator ran past the timeout. */
  workersStopped: number;
}

export function newCounters(): ServerCounters {
  return {
    batches: 0,
    commits: 0,
    mutations: 0,
    failedMutations: 0,
    pokes: 0,
    connects: 0,
    rejectedConnects: 0,
    invalidMessages: 0,
    throttled: 0,
    idleClosed: 0,
    workersStopped: 0,
  };
}
