import { describe, expect, it } from 'vitest';
import { BatchWriter } from './batch-writer';
import { conformanceMutators } from './conformance-mutators';
import { RoomData } from './room-data';
import { ServerTransaction } from './server-transaction';

function tx() {
  const data = new RoomData();
  return { data, tx: new ServerTransaction('c', 1, new BatchWriter(data, 1)) };
}

describe('conformance mutators', () => {
  it('put, del and increment (missing key counts as 0)', async () => {
    const { data, tx: t } = tx();
    await conformanceMutators.put(t, { key: 'a', value: { x: 1 } });
    await conformanceMutators.increment(t, { key: 'n', delta: 2 });
    await conformanceMutators.increment(t, { key: 'n', delta: -5 });
    await conformanceMutators.del(t, { key: 'a' });
    expect([...data.live()]).toEqual([['n', -3]]);
  });

  it('refuse malformed args with an error (the server then skips the mutation)', async () => {
    const { data, tx: t } = tx();
    await expect(conformanceMutators.put(t, null as never)).rejects.toThrow(TypeError);
    await expect(conformanceMutators.put(t, { key: 1, value: 1 } as never)).rejects.toThrow('The key must be a string, got number');
    await expect(conformanceMutators.increment(t, { key: 'n', delta: '5' } as never)).rejects.toThrow(TypeError);
    await expect(conformanceMutators.del(t, {} as never)).rejects.toThrow(TypeError);
    expect(data.liveCount).toBe(0);
  });
});
