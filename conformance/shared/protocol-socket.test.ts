import { describe, expect, it } from 'vitest';
import { CheckFailure } from './check-failure';
import { fakeEnvironment } from './fake-socket';
import { ProtocolSocket } from './protocol-socket';

const TIMEOUT_MS = 5000;

async function opened() {
  const fake = fakeEnvironment();
  const opening = ProtocolSocket.open(fake.env, 'ws://server/api/sync/v1/connect', 'token', TIMEOUT_MS, 'client A');
  fake.sockets[0]!.accept();
  return { ...fake, socket: await opening, raw: fake.sockets[0]! };
}

const hasPong = (socket: ProtocolSocket) => () => (socket.count('pong') > 0 ? true : undefined);

describe('ProtocolSocket', () => {
  it('resolves a wait when a frame satisfies it', async () => {
    const { socket, raw } = await opened();
    const waiting = socket.waitFor('pong', hasPong(socket));
    raw.receive('["pong",{}]');
    await expect(waiting).resolves.toBe(true);
  });

  it('fails a wait at the deadline of the injected clock, quoting the frames that came', async () => {
    const { socket, raw, clock } = await opened();
    raw.receive('["connected",{"wsid":"AAAAAAAAAAAAAAAAAAAAA"}]');
    const waiting = socket.waitFor('pong', hasPong(socket));
    clock.advance(TIMEOUT_MS);
    await expect(waiting).rejects.toMatchObject({
      message: `client A: timed out after ${TIMEOUT_MS} ms waiting for pong`,
      actual: '["connected",{"wsid":"AAAAAAAAAAAAAAAAAAAAA"}]',
    });
  });

  it('fails at once on a frame that breaks the protocol schemas, showing the frame', async () => {
    const { socket, raw } = await opened();
    const waiting = socket.waitFor('pong', hasPong(socket));
    raw.receive('["poke",{"cookie":"one"}]');
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckFailure);
    expect((error as CheckFailure).message).toMatch(/^client A: the server sent a frame that does not match the protocol: Invalid downstream poke message/);
    expect((error as CheckFailure).actual).toBe('["poke",{"cookie":"one"}]');
  });

  it('fails at once on an unexpected error frame, but hands expected ones to waitForError', async () => {
    const { socket, raw } = await opened();
    const waiting = socket.waitFor('pong', hasPong(socket));
    raw.receive('["error","InvalidPush","no"]');
    await expect(waiting).rejects.toThrow('client A: the server answered an error while waiting for pong');
    raw.receive('["error","InvalidMessage","bad"]');
    await expect(socket.waitForError('an error')).resolves.toEqual(['error', 'InvalidMessage', 'bad']);
  });

  it('fails a wait when the socket closes first', async () => {
    const { socket, raw } = await opened();
    const waiting = socket.waitFor('pong', hasPong(socket));
    raw.serverCloses(1011, 'boom');
    await expect(waiting).rejects.toThrow('client A: the socket closed (code 1011, boom) while waiting for pong');
  });

  it('reports an upgrade refused at the HTTP level', async () => {
    const fake = fakeEnvironment();
    const opening = ProtocolSocket.open(fake.env, 'ws://server/x', undefined, TIMEOUT_MS, 'client A');
    fake.sockets[0]!.refuse(401);
    await expect(opening).rejects.toMatchObject({ message: 'client A: the server refused the WebSocket upgrade', actual: 'HTTP 401' });
  });

  it('gives up on an upgrade that never completes', async () => {
    const fake = fakeEnvironment();
    const opening = ProtocolSocket.open(fake.env, 'ws://server/x', undefined, TIMEOUT_MS, 'client A');
    fake.clock.advance(TIMEOUT_MS);
    await expect(opening).rejects.toThrow(`client A: the WebSocket upgrade did not complete within ${TIMEOUT_MS} ms`);
  });

  it('sends the subprotocol it was given and encodes upstream messages as JSON', async () => {
    const { socket, raw } = await opened();
    socket.send(['ping', {}]);
    expect(raw.protocol).toBe('token');
    expect(raw.sent).toEqual(['["ping",{}]']);
  });
});
