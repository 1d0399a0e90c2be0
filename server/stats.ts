/** Counters the admin API reports. */
export interface ServerCounters {
  batches: number;
  mutations: number;
  failedMutations: number;
  pokes: number;
  connects: number;
  rejectedConnects: number;
  invalidMessages: number;
}

export function newCounters(): ServerCounters {
  return { batches: 0, mutations: 0, failedMutations: 0, pokes: 0, connects: 0, rejectedConnects: 0, invalidMessages: 0 };
}
