import { describe, expect, it } from 'vitest';
import type { PokeBody } from '../protocol/generated/types';
import { PokeQueue } from './poke-queue';

function poke(baseCookie: number | null, cookie: number, lmids: Record<string, number> = {}, patch: PokeBody['patch'] = []): PokeBody {
  return { baseCookie, cookie, lastMutationIDChanges: lmids, patch, requestID: `r${cookie}` };
}

/** A queue whose applications wait until the test lets them finish. */
function gatedQueue(hold: (body: PokeBody, waitedMs: number) => boolean = () => false) {
  const applied: PokeBody[] = [];
  const gates: (() => void)[] = [];
  const queue = new PokeQueue(
    (_socketID, body) =>
      new Promise<void>((resolve) => {
        applied.push(body);
        gates.push(resolve);
      }),
    hold,
  );
  const finishOne = async () => {
    gates.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { queue, applied, finishOne };
}

describe('PokeQueue', () => {
  it('merges the pokes that arrive while one is applied: first base cookie, last cookie, patches in order, highest ids', async () => {
    const { queue, applied, finishOne } = gatedQueue();
    queue.enqueue(1, poke(null, 1, { a: 1 }, [{ op: 'put', key: 'k', value: 1 }]));
    queue.enqueue(1, poke(1, 2, { a: 3, b: 1 }, [{ op: 'clear' }]));
    queue.enqueue(1, poke(2, 3, { a: 2 }, [{ op: 'put', key: 'k', value: 3 }, { op: 'del', key: 'j' }]));
    await finishOne();
    await finishOne();
    expect(applied).toEqual([
      poke(null, 1, { a: 1 }, [{ op: 'put', key: 'k', value: 1 }]),
      { ...poke(1, 3, { a: 3, b: 1 }, [{ op: 'clear' }, { op: 'put', key: 'k', value: 3 }, { op: 'del', key: 'j' }]), requestID: 'r3' },
    ]);
  });

  it('keeps apart a poke that does not continue the one before it (so it is found out of order), and pokes of another socket', async () => {
    const { queue, applied, finishOne } = gatedQueue();
    queue.enqueue(1, poke(null, 1));
    queue.enqueue(1, poke(1, 2));
    queue.enqueue(1, poke(5, 6));
    queue.enqueue(2, poke(6, 7));
    for (let i = 0; i < 4; i++) await finishOne();
    expect(applied.map((b) => [b.baseCookie, b.cookie])).toEqual([
      [null, 1],
      [1, 2],
      [5, 6],
      [6, 7],
    ]);
  });

  it('holds the head poke while told to, merging what arrives, and applies it once released', async () => {
    let holding = true;
    const { queue, applied, finishOne } = gatedQueue(() => holding);
    queue.enqueue(1, poke(null, 1, { a: 1 }));
    queue.enqueue(1, poke(1, 2, { a: 2 }));
    await finishOne();
    expect(applied).toEqual([]);
    await queue.idle();
    holding = false;
    queue.release();
    await finishOne();
    expect(applied.map((b) => [b.baseCookie, b.cookie, b.lastMutationIDChanges])).toEqual([[null, 2, { a: 2 }]]);
  });

  it('drops the queued pokes of a socket that went away', async () => {
    const { queue, applied, finishOne } = gatedQueue();
    queue.enqueue(1, poke(null, 1));
    queue.enqueue(1, poke(1, 2));
    queue.drop(1);
    await finishOne();
    await finishOne();
    expect(applied.map((b) => b.cookie)).toEqual([1]);
  });
});
