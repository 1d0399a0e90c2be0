import { describe, expect, it } from 'vitest';
import { NewClientBudget, roomNewClientBudget } from './new-client-budget';

describe('NewClientBudget', () => {
  it('lets each user add up to its budget of new clients per window, then none until the next window', () => {
    let now = 0;
    const budget = new NewClientBudget(2, 1000, () => now);
    expect([budget.take('a'), budget.take('a'), budget.take('a'), budget.take('b')]).toEqual([true, true, false, true]);
    now = 999;
    expect(budget.take('a')).toBe(false);
    now = 1000;
    expect([budget.take('a'), budget.take('a'), budget.take('a')]).toEqual([true, true, false]);
  });

  it("outlives a room's engine: the room's budget is the same when the room loads again", () => {
    const first = roomNewClientBudget('budget-room', 2, 60_000);
    expect([first.take('u'), first.take('u')]).toEqual([true, true]);
    const reloaded = roomNewClientBudget('budget-room', 2, 60_000);
    expect(reloaded.take('u')).toBe(false);
    expect(roomNewClientBudget('other-room', 2, 60_000).take('u')).toBe(true);
  });
});
