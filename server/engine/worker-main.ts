/** A worker thread that runs rooms for the main thread (see worker-host.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import type { MutatorDefs } from '../../src/db/transaction-types';
import { conformanceMutators } from '../conformance-mutators';
import { EngineLostError } from './engine-types';
import { LocalEngineHost } from './local-host';
import { boardGuard } from './mutation-guard';
import { HotLoop } from './hot-loop';
import { Outbox } from './outbox';
import { realPaceClock, ThreadPace } from './pacer';
import { WAKE_WINDOW_MS } from './spin-wait';
import { isBatchRequestWire, unwireBatchRequest, WAKE, wireBatchResult, type BatchRequestWire, type BatchResultWire, type WorkerRequest, type WorkerResponse, type WorkerSetup } from './worker-protocol';
import type { BatchResult } from './engine-types';

const setup = workerData as WorkerSetup;
const board = new Int32Array(setup.board);
let app: MutatorDefs = {};
if (setup.mutatorsURL !== undefined) {
  const module = (await import(setup.mutatorsURL)) as Record<string, unknown>;
  const found = module[setup.mutatorsExport];
  if (typeof found !== 'object' || found === null) throw new Error(`${setup.mutatorsURL} has no export ${setup.mutatorsExport} holding mutators`);
  app = found as MutatorDefs;
}
const roomNumbers = new Map<string, number>();
const host = new LocalEngineHost(
  { mutators: { ...conformanceMutators, ...app }, maxMutationsPerPush: setup.maxMutationsPerPush, maxTombstones: setup.maxTombstones, maxRoomBytes: setup.maxRoomBytes, newClientsPerUser: setup.newClientsPerUser },
  new ThreadPace(realPaceClock, { sliceMs: setup.sliceMs, roomBudgetMs: setup.roomBudgetMs, windowMs: setup.budgetWindowMs }),
  (roomID) => boardGuard(board, roomNumbers.get(roomID) ?? -1),
);

async function answer(r: WorkerRequest): Promise<unknown> {
  switch (r.op) {
    case 'open':
      roomNumbers.set(r.roomID, r.roomNumber);
      return host.open(r.roomID, r.stored, r.bindings);
    case 'close':
      roomNumbers.delete(r.roomID);
      return host.close(r.roomID);
    case 'connect':
      return host.connect(r.roomID, r.request);
    case 'batch':
      return host.batch(r.roomID, r.request);
    case 'pull':
      return host.pull(r.roomID, r.clientGroupID, r.cookie);
    case 'apply':
      return host.apply(r.roomID, r.changes);
    case 'since':
      return host.since(r.roomID, r.cookie, r.clientGroupIDs);
    case 'stats':
      return host.stats(r.roomID);
  }
}

const port = parentPort!;
const outbox = new Outbox<WorkerResponse | BatchResultWire>((responses) => port.postMessage(responses));
const turned = new Float64Array(setup.turned);
const due = new HotLoop(undefined, (ms) => (turned[0] = ms));
port.on('message', (requests: (WorkerRequest | BatchRequestWire)[] | typeof WAKE) => {
  if (requests === WAKE) return due.keep(WAKE_WINDOW_MS);
  due.stop();
  for (const m of requests) {
    const r = isBatchRequestWire(m) ? unwireBatchRequest(m) : m;
    answer(r).then(
      (value) => outbox.send(r.op === 'batch' ? wireBatchResult(r.id, value as BatchResult) : { id: r.id, ok: true, value }),
      (error: unknown) => {
        const e = error instanceof Error ? error : new Error(String(error));
        outbox.send({ id: r.id, ok: false, error: { name: e.name, message: e.message, lost: error instanceof EngineLostError } });
      },
    );
  }
});
port.postMessage({ ready: true });
