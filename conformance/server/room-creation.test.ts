import { describe, expect, it } from 'vitest';
import { CheckFailure } from '../shared/check-failure';
import { fakeEnvironment } from '../shared/fake-socket';
import { createRoom, roomCreationRequest } from './room-creation';

describe('room creation', () => {
  it('replaces {roomID} in the url (encoded), header values and a JSON body', () => {
    const request = roomCreationRequest(
      { method: 'POST', url: 'http://h/api/rooms/{roomID}', headers: { 'x-room': '{roomID}', authorization: 'Bearer k' }, body: { roomID: '{roomID}', tags: ['{roomID}'] } },
      'a b',
    );
    expect(request.url).toBe('http://h/api/rooms/a%20b');
    expect(request.init.headers).toEqual({ 'x-room': 'a b', authorization: 'Bearer k', 'content-type': 'application/json' });
    expect(JSON.parse(request.init.body!)).toEqual({ roomID: 'a b', tags: ['a b'] });
  });

  it('sends a string body as it is, with {roomID} replaced', () => {
    const request = roomCreationRequest({ method: 'PUT', url: 'http://h/', body: 'room={roomID}' }, 'r1');
    expect(request.init).toEqual({ method: 'PUT', headers: {}, body: 'room=r1' });
  });

  it('fails the check with the HTTP answer when the server does not create the room', async () => {
    const { env } = fakeEnvironment();
    const failing = { ...env, fetch: async () => ({ status: 403, text: async () => 'wrong key' }) };
    const error = await createRoom(failing, { method: 'POST', url: 'http://h/{roomID}' }, 'r1', 1000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckFailure);
    expect(error).toMatchObject({ message: 'room creation failed: POST http://h/r1', expected: 'a 2xx answer', actual: 'HTTP 403 wrong key' });
  });

  it('gives up on a room creation call that never answers', async () => {
    const { env, clock } = fakeEnvironment();
    const hanging = { ...env, fetch: () => new Promise<never>(() => {}) };
    const creating = createRoom(hanging, { method: 'POST', url: 'http://h/' }, 'r1', 1000);
    clock.advance(1000);
    await expect(creating).rejects.toThrow('timed out after 1000 ms waiting for the room creation call POST http://h/');
  });
});
