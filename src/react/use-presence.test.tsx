// @vitest-environment jsdom
import { act, cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Presence } from '../presence/presence-view';
import { usePresence, type PresenceSource } from './use-presence';

afterEach(() => cleanup());

/** A presence source the test drives by hand. */
function source() {
  const listeners = new Set<(p: Presence) => void>();
  const s: PresenceSource & { emit(p: Presence): void; readonly listeners: number } = {
    subscribeToPresence<S>(callback: (presence: Presence<S>) => void) {
      const l = callback as (p: Presence) => void;
      listeners.add(l);
      return () => listeners.delete(l);
    },
    emit: (p) => listeners.forEach((l) => l(p)),
    get listeners() {
      return listeners.size;
    },
  };
  return s;
}

function presenceOf(users: Record<string, number>): Presence {
  const clients = Object.entries(users).flatMap(([userID, n]) => Array.from({ length: n }, (_, i) => ({ clientID: `${userID}-${i}`, userID, state: null, isSelf: userID === 'ada' })));
  return { clients, users: Object.keys(users).map((userID) => ({ userID, clients: clients.filter((c) => c.userID === userID), isSelf: userID === 'ada' })) };
}

function WhoIsHere({ r }: { r: PresenceSource | null }) {
  const { users } = usePresence(r);
  return <p>{users.map((u) => `${u.userID}×${u.clients.length}`).join(',') || 'nobody'}</p>;
}

describe('usePresence', () => {
  it('is empty until the client has read who is here, then follows every change; unsubscribes on unmount', () => {
    const r = source();
    const view = render(<WhoIsHere r={r} />);
    expect(view.container.textContent).toBe('nobody');
    act(() => r.emit(presenceOf({ ada: 2, bob: 1 })));
    expect(view.container.textContent).toBe('ada×2,bob×1');
    act(() => r.emit(presenceOf({ ada: 1 })));
    expect(view.container.textContent).toBe('ada×1');
    view.unmount();
    expect(r.listeners).toBe(0);
  });

  it('without a client it shows nobody', () => {
    expect(render(<WhoIsHere r={null} />).container.textContent).toBe('nobody');
  });
});
