import type { ErrorKind } from '../../src/protocol';
import { CheckFailure } from '../shared/check-failure';
import type { ProtocolSocket } from '../shared/protocol-socket';

/** Waits for an error frame of one of `kinds`; returns its message. */
export async function expectErrorFrame(socket: ProtocolSocket, kinds: readonly ErrorKind[], situation: string): Promise<string> {
  const expected = `["error", ${kinds.map((kind) => JSON.stringify(kind)).join(' or ')}, …] for ${situation}`;
  let frame;
  try {
    frame = await socket.waitForError(`an error frame for ${situation}`);
  } catch (error) {
    if (error instanceof CheckFailure) throw new CheckFailure(error.message, expected, error.actual);
    throw error;
  }
  if (!kinds.includes(frame[1])) throw new CheckFailure(`${socket.label}: wrong error kind for ${situation}`, expected, JSON.stringify(frame));
  return frame[2];
}

/** A connect-time refusal: an error frame of one of `kinds`, then the server closes the socket. */
export async function expectRefusal(socket: ProtocolSocket, kinds: readonly ErrorKind[], situation: string): Promise<void> {
  const expected = `["error", ${kinds.map((kind) => JSON.stringify(kind)).join(' or ')}, …] for ${situation}, then a close`;
  // Fail at once when the server accepts instead of waiting out the deadline.
  const first = await socket
    .waitFor(`an error frame for ${situation}`, () => socket.frames.find((f) => f.message?.[0] === 'error' || f.message?.[0] === 'connected'), { allowErrors: true })
    .catch((error: unknown) => {
      if (error instanceof CheckFailure) throw new CheckFailure(error.message, expected, error.actual);
      throw error;
    });
  if (first.message?.[0] === 'connected') {
    throw new CheckFailure(`${socket.label}: the server accepted the connection for ${situation}`, expected, first.text);
  }
  await expectErrorFrame(socket, kinds, situation);
  try {
    await socket.waitForClose(`the server to close the socket after refusing ${situation}`);
  } catch (error) {
    if (error instanceof CheckFailure) throw new CheckFailure(error.message, 'the server closes the socket after the error frame', error.actual);
    throw error;
  }
}
