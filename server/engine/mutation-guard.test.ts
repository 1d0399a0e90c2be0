import { expect, it } from 'vitest';
import { manualTimers } from '../test-support/manual-timers';
import { MutationDeadlines } from './mutation-deadlines';
import { withDeadline } from './mutation-guard';

it('settles a call that throws instead of rejecting: its error, the settled hook once, nothing left watched', async () => {
  const manual = manualTimers();
  const deadlines = new MutationDeadlines(manual.timers, 100, manual.now);
  const boom = new Error('boom');
  let settled = 0;
  const outcome = withDeadline(
    deadlines,
    () => {
      throw boom;
    },
    () => new Error('timed out'),
    () => settled++,
  );
  await expect(outcome).rejects.toBe(boom);
  expect(settled).toBe(1);
  expect(deadlines.held).toBe(0);
});
