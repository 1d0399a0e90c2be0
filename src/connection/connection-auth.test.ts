import { describe, expect, it } from 'vitest';
import { MAX_REAUTH_RETRIES } from '../../protocol/constants';
import { Harness } from './testing/harness';

const SECOND = 1000;

function tokenSource(): { auth: () => Promise<string>; calls: number } {
  const source = {
    calls: 0,
    auth: async () => `t${++source.calls}`,
  };
  return source;
}

/** Answers every new socket with Unauthorized, stepping 1 s at a time up to `untilMs`. */
async function refuseEveryAttempt(h: Harness, untilMs: number): Promise<void> {
  const refused = new Set<unknown>();
  for (;;) {
    await h.settle();
    const socket = h.sockets.at(-1);
    if (socket !== undefined && !refused.has(socket)) {
      refused.add(socket);
      socket.error('Unauthorized', 'bad token');
      continue;
    }
    if (h.clock.now() >= untilMs) return;
    await h.clock.advance(SECOND);
  }
}

describe('authentication', () => {
  it('retries at once with a fresh token after the first auth error', async () => {
    const tokens = tokenSource();
    const h = new Harness({ auth: tokens.auth });
    await h.settle();
    expect(h.socket.protocols).toBe('t1');
    h.socket.error('AuthInvalidated', 'expired');
    await h.settle();
    expect(h.server.openedAt).toEqual([0, 0]);
    expect(h.socket.protocols).toBe('t2');
    h.socket.connect();
    await h.settle();
    expect(h.connection.online).toBe(true);
  });

  it('keeps using the token it has when the failure was not about auth', async () => {
    const tokens = tokenSource();
    const h = new Harness({ auth: tokens.auth });
    await h.settle();
    h.socket.drop();
    await h.clock.advance(5 * SECOND);
    expect(h.sockets.map((s) => s.protocols)).toEqual(['t1', 't1']);
    expect(tokens.calls).toBe(1);
  });

  it('backs off consecutive auth failures and stops after 8 re-authentication retries', async () => {
    const tokens = tokenSource();
    const h = new Harness({ auth: tokens.auth });
    await refuseEveryAttempt(h, 600 * SECOND);
    // The first connect, then MAX_REAUTH_RETRIES retries: at once, then 5, 10, 20, 40, 60, 60, 60 s apart.
    expect(h.sockets).toHaveLength(1 + MAX_REAUTH_RETRIES);
    expect(h.server.openedAt.map((ms) => ms / SECOND)).toEqual([0, 0, 5, 15, 35, 75, 135, 195, 255]);
    expect(h.sockets.map((s) => s.protocols)).toEqual(['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 't9']);
    expect(h.connection.state.halt).toBe('ReauthLimit');
    expect(h.haltError()).toMatchObject({ message: expect.stringContaining('re-authentication retries') });
    expect(h.connection.online).toBe(false);
    expect(h.connection.phase).toBe('disconnected');
    expect(h.errorLines().some((line) => line.includes('Stopped connecting: ReauthLimit'))).toBe(true);
  });

  it('resumes after the cap when the app calls reconnect(), with a fresh token', async () => {
    const tokens = tokenSource();
    const h = new Harness({ auth: tokens.auth });
    await refuseEveryAttempt(h, 300 * SECOND);
    expect(h.connection.state.halt).toBe('ReauthLimit');
    h.connection.reconnect();
    await h.settle();
    expect(h.sockets).toHaveLength(2 + MAX_REAUTH_RETRIES);
    expect(h.socket.protocols).toBe('t10');
    expect(h.connection.state.halt).toBeNull();
    h.socket.connect();
    await h.settle();
    expect(h.connection.online).toBe(true);
  });

  it('resumes after the cap when the page becomes visible again or the network comes back', async () => {
    const h = new Harness({ auth: tokenSource().auth });
    await refuseEveryAttempt(h, 300 * SECOND);
    const before = h.sockets.length;
    h.visibility.set(false);
    await h.clock.advance(SECOND);
    h.visibility.set(true);
    await h.settle();
    expect(h.sockets).toHaveLength(before + 1);
    // The count starts again: the first auth error retries at once.
    h.socket.error('Unauthorized');
    await h.settle();
    expect(h.sockets).toHaveLength(before + 2);

    const again = new Harness({ auth: tokenSource().auth });
    await refuseEveryAttempt(again, 300 * SECOND);
    const count = again.sockets.length;
    again.network.set(false);
    again.network.set(true);
    await again.settle();
    expect(again.sockets).toHaveLength(count + 1);
  });

  it('treats a failing auth function like an auth error', async () => {
    let calls = 0;
    const h = new Harness({
      auth: async () => {
        calls++;
        if (calls === 1) throw new Error('auth service down');
        return 'ok';
      },
    });
    await h.settle();
    expect(h.sockets).toHaveLength(1);
    expect(h.socket.protocols).toBe('ok');
  });

  it('an auth function that never answers ends in ConnectTimeout, and the next attempt asks again', async () => {
    let calls = 0;
    const h = new Harness({ auth: () => (++calls === 1 ? new Promise<string>(() => {}) : 'late') });
    await h.clock.advance(10 * SECOND);
    expect(h.sockets).toHaveLength(0);
    expect(h.connection.state.lastDisconnectReason).toBe('ConnectTimeout');
    await h.clock.advance(5 * SECOND);
    expect(calls).toBe(2);
    expect(h.server.openedAt).toEqual([15 * SECOND]);
    expect(h.socket.protocols).toBe('late');
  });
});
