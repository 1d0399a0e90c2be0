import type { Timers } from '../clock';

/** Timers fired by hand, with a clock that moves to each timer as it fires. */
export function manualTimers() {
  let now = 0;
  const pending: { at: number; fn: () => void }[] = [];
  const timers: Timers = {
    setTimeout: (fn, ms) => {
      const t = { at: now + ms, fn };
      pending.push(t);
      return t;
    },
    clearTimeout: (h) => {
      const i = pending.indexOf(h as never);
      if (i !== -1) pending.splice(i, 1);
    },
  };
  return {
    timers,
    now: () => now,
    /** True when a timer is due within `withinMs`. */
    due(withinMs = Infinity): boolean {
      return pending.some((t) => t.at <= now + withinMs);
    },
    /** Fires the earliest timer due within `withinMs`; false when there is none. */
    fireNext(withinMs = Infinity): boolean {
      pending.sort((a, b) => a.at - b.at);
      if (pending.length === 0 || pending[0]!.at > now + withinMs) return false;
      const t = pending.shift()!;
      now = t.at;
      t.fn();
      return true;
    },
  };
}
