import { describe, expect, it } from 'vitest';
import { LAST_CONNECT_ERROR } from '../metrics/metric-names';
import { AuthError, CloseError, ServerError } from './errors';
import { Harness } from './testing/harness';

const SECOND = 1000;

describe('server error frames', () => {
  it('reject the pending connect and disconnect', async () => {
    const h = new Harness();
    await h.settle();
    h.socket.error('RoomNotFound', 'room-1');
    const [error] = h.connectErrors();
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ kind: 'RoomNotFound', message: 'room-1' });
    expect(h.socket.closedByClient?.reason).toBe('RoomNotFound');
    expect(h.metrics.states.get(LAST_CONNECT_ERROR)).toBe('RoomNotFound');
    await h.clock.advance(5 * SECOND);
    expect(h.sockets).toHaveLength(2);
  });

  it('disconnect a connected socket too, then back off', async () => {
    const h = new Harness();
    await h.connectLast();
    h.socket.error('InvalidPush', 'unexpected mutation id 3, expected 2');
    expect(h.connection.phase).toBe('disconnected');
    expect(h.connection.online).toBe(false);
    await h.clock.advance(5 * SECOND);
    expect(h.server.openedAt).toEqual([0, 5 * SECOND]);
  });

  it('auth errors are AuthErrors', async () => {
    const h = new Harness({ auth: 'a' });
    await h.settle();
    h.socket.error('Unauthorized', 'no');
    expect(h.connectErrors()).toEqual([expect.any(AuthError)]);
  });

  it('VersionNotSupported calls onUpdateNeeded once and does not reconnect', async () => {
    const h = new Harness();
    await h.settle();
    h.socket.error('VersionNotSupported', 'v1 is gone');
    await h.clock.advance(600 * SECOND);
    expect(h.updateNeeded).toEqual([{ type: 'VersionNotSupported' }]);
    expect(h.sockets).toHaveLength(1);
    expect(h.connection.state.halt).toBe('UpdateNeeded');
    h.connection.reconnect();
    await h.settle();
    expect(h.sockets).toHaveLength(1);
  });

  it('ClientNotFound disables the client group, calls onClientStateNotFound and stops syncing', async () => {
    const h = new Harness();
    await h.connectLast();
    h.socket.error('ClientNotFound', 'who?');
    await h.clock.advance(600 * SECOND);
    expect(h.errorLines()).toContain('Client group group-1 is unknown on server');
    expect(h.haltError()).toMatchObject({ kind: 'ClientNotFound', message: 'who?' });
    expect(h.connection.state.halt).toBe('ClientStateNotFound');
    expect(h.target.disabled).toBe(true);
    expect(h.clientStateNotFound).toBe(1);
    expect(h.sockets).toHaveLength(1);
  });

  it('a missing local client (reported by the store) calls onClientStateNotFound and stops syncing', async () => {
    const h = new Harness();
    await h.connectLast();
    h.connection.clientStateNotFound();
    await h.clock.advance(600 * SECOND);
    expect(h.clientStateNotFound).toBe(1);
    expect(h.socket.closedByClient?.reason).toBe('ClientStateNotFound');
    expect(h.sockets).toHaveLength(1);
  });
});

describe('invalid frames', () => {
  it.each([
    ['not JSON', 'hello'],
    ['an unknown message', '["surprise",{}]'],
    ['a malformed poke', '["poke",{"cookie":"x"}]'],
  ])('%s: logged, InvalidMessage, disconnect, back-off', async (_name, text) => {
    const h = new Harness();
    await h.connectLast();
    h.socket.deliverText(text);
    expect(h.socket.closedByClient?.reason).toBe('InvalidMessage');
    expect(h.linesAt('warn')).toContain('Invalid message from the server');
    expect(h.errorLines()).toEqual([]);
    await h.clock.advance(5 * SECOND);
    expect(h.sockets).toHaveLength(2);
  });

  it('accepts unknown extra fields in downstream bodies', async () => {
    const h = new Harness();
    await h.connectLast();
    h.socket.deliverText('["pong",{"extra":1}]');
    expect(h.connection.phase).toBe('connected');
  });
});

describe('socket close', () => {
  it('is a CleanClose or an AbruptClose, logged and kept as the last connect error', async () => {
    const h = new Harness();
    await h.settle();
    h.socket.drop(true);
    const [clean] = h.connectErrors();
    expect(clean).toBeInstanceOf(CloseError);
    expect(clean).toMatchObject({ kind: 'CleanClose', code: 1000 });
    expect(h.metrics.states.get(LAST_CONNECT_ERROR)).toBe('CleanClose');

    await h.clock.advance(5 * SECOND);
    h.socket.drop(false);
    expect(h.connectErrors()[1]).toMatchObject({ kind: 'AbruptClose' });
    expect(h.metrics.states.get(LAST_CONNECT_ERROR)).toBe('AbruptClose');
    expect(h.linesAt('warn')).toEqual(['Could not connect: CleanClose', 'Could not connect: AbruptClose']);
  });

  it('close() closes the socket and stops everything', async () => {
    const h = new Harness();
    await h.connectLast();
    h.connection.close();
    expect(h.connection.phase).toBe('closed');
    expect(h.socket.closedByClient?.reason).toBe('ClientClosed');
    expect(h.onlineChanges).toEqual([true, false]);
    h.visibility.set(false);
    h.visibility.set(true);
    h.connection.reconnect();
    await h.clock.advance(600 * SECOND);
    expect(h.sockets).toHaveLength(1);
    expect(h.clock.pendingTimers).toBe(0);
  });
});

describe('disconnect() by the app', () => {
  it('closes the socket, stays offline through visibility and network changes, and resumes on reconnect()', async () => {
    const h = new Harness();
    await h.connectLast();
    h.connection.disconnect();
    expect(h.socket.closedByClient?.reason).toBe('ClientDisconnected');
    expect(h.connection.state.halt).toBe('ClientDisconnected');
    expect(h.metrics.states.has('last_connect_error')).toBe(false);
    h.visibility.set(false);
    h.visibility.set(true);
    h.network.set(false);
    h.network.set(true);
    await h.clock.advance(600 * SECOND);
    expect(h.sockets).toHaveLength(1);
    h.target.mutate('offline');
    h.connection.reconnect();
    await h.connectLast();
    expect(h.sockets).toHaveLength(2);
    expect(h.socket.messages).toEqual([['push', expect.objectContaining({ mutations: [expect.objectContaining({ id: 1 })] })]]);
  });

  it('reports state changes and the next retry time', async () => {
    const h = new Harness({ start: false });
    const phases: string[] = [];
    h.connection.onStateChange((state) => {
      const phase = `${state.phase}/${state.waiting}`;
      if (phases.at(-1) !== phase) phases.push(phase);
    });
    h.connection.start();
    await h.settle();
    h.socket.drop();
    expect(h.connection.nextRetryAt).toBe(5 * SECOND);
    await h.clock.advance(5 * SECOND);
    expect(h.connection.nextRetryAt).toBeUndefined();
    expect(phases).toEqual(['connecting/none', 'disconnected/backoff', 'connecting/none']);
  });
});
