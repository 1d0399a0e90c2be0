import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../kv/idb-store';
import { MemoryStore } from '../kv/memory-store';
import { dropLog, OwnLog, readLogs, trimLog, type LoggedMutation } from './mutation-log';

let n = 0;
const names: string[] = [];
afterEach(() => {
  for (const name of names.splice(0)) MemoryStore.drop(name);
});
function memory(): MemoryStore {
  const name = `log-${++n}`;
  names.push(name);
  return new MemoryStore(name);
}

const m = (clientID: string, id: number): LoggedMutation => ({ clientID, id, name: 'put', args: { key: `k${id}`, value: id }, timestamp: id * 10 });
const ids = (log: { entries: readonly LoggedMutation[] } | undefined) => log?.entries.map((e) => e.id);

describe('the write-ahead log', () => {
  it('keeps each client its own log, in id order, with its group, across reopening the store', async () => {
    const kv = memory();
    const a = new OwnLog(kv, 'a', 'g1');
    const b = new OwnLog(kv, 'b', 'g2');
    await Promise.all([a.register(), b.register()]);
    await Promise.all([a.append(m('a', 1)), b.append(m('b', 1)), a.append(m('a', 2))]);
    const logs = await readLogs(new MemoryStore(names.at(-1)!));
    expect(logs.map((l) => [l.clientID, l.clientGroupID, l.entries])).toEqual([
      ['a', 'g1', [m('a', 1), m('a', 2)]],
      ['b', 'g2', [m('b', 1)]],
    ]);
    expect((await readLogs(kv, 'g2')).map((l) => l.clientID)).toEqual(['b']);
  });

  it('appends made at once are stored in the order made', async () => {
    const kv = memory();
    const log = new OwnLog(kv, 'a', 'g');
    await log.register();
    await Promise.all(Array.from({ length: 20 }, (_, i) => log.append(m('a', i + 1))));
    expect(ids((await readLogs(kv))[0])).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('another client may trim a prefix while the owner goes on appending: nothing the owner adds is lost', async () => {
    const kv = memory();
    const log = new OwnLog(kv, 'a', 'g');
    await log.register();
    for (let id = 1; id <= 4; id++) await log.append(m('a', id));
    await trimLog(kv, 'a', 3);
    await log.append(m('a', 5));
    expect(ids((await readLogs(kv))[0])).toEqual([4, 5]);
    await log.trimThrough(5);
    await log.append(m('a', 6));
    expect(ids((await readLogs(kv))[0])).toEqual([6]);
  });

  it('a long log is trimmed and dropped a slice of entries per write, each write a trim of its own', async () => {
    const kv = memory();
    const log = new OwnLog(kv, 'a', 'g');
    await log.register();
    for (let id = 1; id <= 2_500; id++) await log.append(m('a', id));
    let writes = 0;
    const write = kv.write.bind(kv);
    kv.write = () => {
      writes++;
      return write();
    };
    await trimLog(kv, 'a', 2_400);
    expect(writes).toBe(3);
    expect(ids((await readLogs(kv))[0])).toEqual(Array.from({ length: 100 }, (_, i) => 2_401 + i));
    await log.append(m('a', 2_501));
    expect(ids((await readLogs(kv))[0])?.at(-1)).toBe(2_501);
    for (let id = 2_502; id <= 3_700; id++) await log.append(m('a', id));
    writes = 0;
    await dropLog(kv, 'a');
    // The owner's appends carry its cached lower bound (1; readers skip what was trimmed): ids 1–2,700 are trimmed in 3 slices, then the last 1,000 go with the drop.
    expect(writes).toBe(4);
    expect(await readLogs(kv)).toEqual([]);
    const r = await kv.read();
    expect(await r.get('l/a/3700')).toBeUndefined();
    expect(await r.get('l/a/2401')).toBeUndefined();
    r.release();
  });

  it('a long trim gets through while the owner keeps appending, and each of its slices stays trimmed', async () => {
    const kv = memory();
    const log = new OwnLog(kv, 'a', 'g');
    await log.register();
    for (let id = 1; id <= 5_000; id++) await log.append(m('a', id));
    const other = trimLog(kv, 'a', 2_500);
    const own = log.trimThrough(5_000);
    let next = 5_001;
    let done = false;
    void Promise.all([other, own]).then(() => (done = true));
    while (!done && next <= 7_000) await log.append(m('a', next++));
    expect(done).toBe(true);
    await log.append(m('a', next));
    expect(ids((await readLogs(kv))[0])).toEqual(Array.from({ length: next - 5_000 }, (_, i) => 5_001 + i));
    const r = await kv.read();
    expect(await r.get('l/a')).toEqual({ first: 5_001, next: next + 1 });
    r.release();
  });

  it('a dropped log leaves no trace; the others stay', async () => {
    const kv = memory();
    const a = new OwnLog(kv, 'a', 'g');
    const b = new OwnLog(kv, 'b', 'g');
    await a.register();
    await b.register();
    await a.append(m('a', 1));
    await b.append(m('b', 1));
    await a.drop();
    await dropLog(kv, 'missing');
    expect((await readLogs(kv)).map((l) => l.clientID)).toEqual(['b']);
  });

  it('skips entries that are not well-formed', async () => {
    const kv = memory();
    const log = new OwnLog(kv, 'a', 'g');
    await log.register();
    await log.append(m('a', 1));
    await log.append(m('a', 2));
    const w = await kv.write();
    await w.put('l/a/1', { nonsense: true });
    await w.commit();
    expect(ids((await readLogs(kv))[0])).toEqual([2]);
  });

  it('works on IndexedDB', async () => {
    const name = `idb-log-${++n}`;
    const kv = await openStore(name);
    const log = new OwnLog(kv, 'a', 'g');
    await log.register();
    await log.append(m('a', 1));
    await log.append(m('a', 2));
    await kv.close();
    const again = await openStore(name);
    expect((await readLogs(again))[0]?.entries).toEqual([m('a', 1), m('a', 2)]);
    await again.close();
  });
});
