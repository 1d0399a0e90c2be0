import { describe, expect, it } from 'vitest';
import { demoMutators } from '../demo/shared/mutators';
import type { WriteTransaction } from '../src/db/transaction-types';
import { uniqueID } from './test-support/test-client';
import { startTestServer } from './test-support/test-server';

const TODOS = 2000;
const HEAVY_MUTATIONS = 300;

describe('isolation: one room\'s heavy batch does not stall others (in-process rooms)', () => {
  it('answers another room\'s ping and push while a long batch of scans and sorts is still running', async () => {
    let heavyRan = 0;
    const t = await startTestServer({
      maxMutationsPerPush: 5000,
      mutators: {
        ...demoMutators,
        async clearCompletedCounted(tx: WriteTransaction) {
          heavyRan++;
          await demoMutators.clearCompleted(tx);
        },
      },
    });
    const heavy = t.connect({ roomID: uniqueID('heavy') });
    const other = t.connect({ roomID: uniqueID('other') });
    await Promise.all([heavy.ready(), other.ready()]);
    heavy.push(
      Array.from({ length: TODOS }, (_, i) =>
        heavy.mutation('addTodo', { id: `t${i}`, text: `todo ${i}`, createdBy: 'u', color: '#000', createdAt: i }),
      ),
    );
    await heavy.acked(TODOS);

    heavy.push(Array.from({ length: HEAVY_MUTATIONS }, () => heavy.mutation('clearCompletedCounted', {})));
    other.sendRaw(JSON.stringify(['ping', {}]));
    other.mutate('put', { key: 'k', value: 1 });
    await other.until(() => other.messages.some((m) => m[0] === 'pong'));
    await other.acked(1);
    // The other room was served between the heavy room's slices, not after them.
    expect(heavyRan).toBeGreaterThan(0);
    expect(heavyRan).toBeLessThan(HEAVY_MUTATIONS);
    await heavy.acked(TODOS + HEAVY_MUTATIONS);
    expect(heavyRan).toBe(HEAVY_MUTATIONS);
    await t.close();
  }, 60_000);
});
