import { describe, expect, it } from 'vitest';
import { alwaysOn, defaultEnvironment, documentVisibility, navigatorNetwork } from './default-environment';

class FakeTarget {
  readonly listeners = new Map<string, Set<() => void>>();
  addEventListener(type: string, listener: () => void) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type)!.add(listener);
  }
  removeEventListener(type: string, listener: () => void) {
    this.listeners.get(type)?.delete(listener);
  }
  fire(type: string) {
    for (const listener of this.listeners.get(type) ?? []) listener();
  }
}

describe('default environment', () => {
  it('reads document.visibilityState and its visibilitychange event', () => {
    const doc = Object.assign(new FakeTarget(), { visibilityState: 'hidden' });
    const source = documentVisibility(doc);
    const seen: boolean[] = [];
    const unsubscribe = source.subscribe((visible) => seen.push(visible));
    expect(source.visible).toBe(false);
    doc.visibilityState = 'visible';
    doc.fire('visibilitychange');
    unsubscribe();
    doc.fire('visibilitychange');
    expect(seen).toEqual([true]);
  });

  it('reads navigator.onLine and the online/offline events', () => {
    const win = Object.assign(new FakeTarget(), { navigator: { onLine: true } });
    const source = navigatorNetwork(win);
    const seen: boolean[] = [];
    const unsubscribe = source.subscribe((online) => seen.push(online));
    win.fire('offline');
    win.fire('online');
    unsubscribe();
    win.fire('offline');
    expect(seen).toEqual([false, true]);
    expect(source.online).toBe(true);
  });

  it('in Node: always visible and online, real clock, random ids, and a clear error without a WebSocket', () => {
    const env = defaultEnvironment();
    expect(env.visibility).toBe(alwaysOn);
    expect(env.network.online).toBe(true);
    const r = env.random();
    expect(r >= 0 && r < 1).toBe(true);
    expect(env.clock.now()).toBeGreaterThan(0);
    if (!('WebSocket' in globalThis)) expect(() => new env.WebSocket('ws://x')).toThrow(/No WebSocket/);
  });
});
