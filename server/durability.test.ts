import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appState } from './test-support/app-state';
import { childProcessIDs, isRunning, killChildServers, startChildServer } from './test-support/child-server';
import { TestClient, uniqueID } from './test-support/test-client';

const dataDir = mkdtempSync(join(tmpdir(), 'roomsync-durability-'));
afterAll(async () => {
  await killChildServers();
  rmSync(dataDir, { recursive: true, force: true });
});

const CLIENTS = 4;
const MUTATIONS_PER_CLIENT = 120;
const ROUNDS = 6;
const IN_FLIGHT = 4;

/** Odd ids increment "total", even ids put their own key: both kinds must survive exactly once. */
function mutationFor(c: TestClient, id: number) {
  return id % 2 === 1
    ? c.mutation('increment', { key: 'total', delta: 1 }, id)
    : c.mutation('put', { key: `${c.clientID}/${id}`, value: id }, id);
}

function expectedState(clients: readonly { clientID: string }[], lmids: readonly number[]): Record<string, number> {
  const state: Record<string, number> = {};
  let total = 0;
  clients.forEach((c, i) => {
    for (let id = 1; id <= lmids[i]!; id++) {
      if (id % 2 === 1) total++;
      else state[`${c.clientID}/${id}`] = id;
    }
  });
  if (total > 0) state.total = total;
  return state;
}

/** One process serving every room, or the default room processes: kill -9 reaches every process that stores. */
describe.each([
  ['one process', ['--room-processes', '0']],
  ['room processes', []],
])('durability (%s, kill -9)', (_mode, modeArgs: string[]) => {
  it('never loses an acknowledged mutation and applies re-pushed ones exactly once', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const roomID = uniqueID('durable');
      const ids = Array.from({ length: CLIENTS }, () => ({ clientID: uniqueID('c'), clientGroupID: uniqueID('g') }));
      const first = await startChildServer(['--data-dir', dataDir, '--log-level', 'warn', ...modeArgs]);
      const roomProcesses = childProcessIDs(first.pid);
      expect(roomProcesses.length > 0).toBe(modeArgs.length === 0);
      const clients = ids.map((x) => TestClient.connect(first.url, { roomID, ...x }));
      await Promise.all(clients.map((c) => c.ready()));
      const killAfter = 1 + Math.floor(Math.random() * CLIENTS * MUTATIONS_PER_CLIENT * 0.8);
      const ackedTotal = () => clients.reduce((n, c) => n + c.lmid, 0);
      let killed = false;
      // Each client keeps a few unacknowledged mutations in flight, so the kill lands mid-stream.
      const sent = clients.map(() => 0);
      const killed$ = new Promise<void>((resolve) => {
        const step = () => {
          if (killed) return;
          if (ackedTotal() >= killAfter) {
            killed = true;
            resolve();
            return;
          }
          clients.forEach((c, i) => {
            while (!c.closed && sent[i]! < MUTATIONS_PER_CLIENT && sent[i]! - c.lmid < IN_FLIGHT) c.push([mutationFor(c, ++sent[i]!)]);
          });
        };
        for (const c of clients) c.ws.on('message', step);
        step();
      });
      await killed$;
      // The real server processes, all at once: once they are gone nothing more can be acknowledged.
      for (const pid of roomProcesses) process.kill(pid, 'SIGKILL');
      expect(await first.stop('SIGKILL')).toBe('SIGKILL');
      // (A killed process stays a zombie until whoever adopted it reaps it.)
      for (let i = 0; i < 500 && roomProcesses.some(isRunning); i++) await new Promise((r) => setTimeout(r, 10));
      expect([first.pid, ...roomProcesses].filter(isRunning)).toEqual([]);
      const acked = clients.map((c) => c.lmid);

      const second = await startChildServer(['--data-dir', dataDir, '--log-level', 'warn', ...modeArgs]);
      const secondProcesses = childProcessIDs(second.pid);
      const again = ids.map((x, i) => TestClient.connect(second.url, { roomID, ...x, lmid: acked[i]! }));
      await Promise.all(again.map((c) => c.ready()));
      const recovered = again.map((c) => c.lmid);
      recovered.forEach((l, i) => expect(l).toBeGreaterThanOrEqual(acked[i]!));
      expect(appState(again[0]!)).toEqual(expectedState(ids, recovered));

      // Re-push everything from id 1: processed ones are ignored, the rest applied once.
      for (const c of again) c.push(Array.from({ length: MUTATIONS_PER_CLIENT }, (_, k) => mutationFor(c, k + 1)));
      await Promise.all(again.map((c) => c.acked(MUTATIONS_PER_CLIENT)));
      const full = expectedState(ids, ids.map(() => MUTATIONS_PER_CLIENT));
      for (const c of again) {
        await c.until(() => c.cookie !== null && Object.keys(appState(c)).length === Object.keys(full).length, 'final state');
        expect(appState(c)).toEqual(full);
        expect(c.outOfOrder).toEqual([]);
      }
      await Promise.all(again.map((c) => c.close()));
      expect(await second.stop('SIGTERM')).toBe(0);
      expect([second.pid, ...secondProcesses].filter(isRunning)).toEqual([]);
    }
  }, 60_000);
});
