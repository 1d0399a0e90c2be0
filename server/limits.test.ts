import { afterEach, describe, expect, it } from 'vitest';
import { uniqueID } from './test-support/test-client';
import { startTestServer, type TestServer } from './test-support/test-server';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('limits', () => {
  it('closes a socket that sends a frame above maxFrameBytes (1009), without harming the room', async () => {
    t = await startTestServer({ maxFrameBytes: 1024 });
    const roomID = uniqueID('room');
    const big = t.connect({ roomID });
    const other = t.connect({ roomID });
    await Promise.all([big.ready(), other.ready()]);
    big.mutate('put', { key: 'k', value: 'x'.repeat(2000) });
    await big.until(() => big.closed);
    expect(big.closeCode).toBe(1009);
    other.mutate('put', { key: 'ok', value: 1 });
    await other.acked(1);
    expect(Object.fromEntries(other.state)).toEqual({ ok: 1 });
  });

  it('refuses a push with too many mutations with InvalidPush', async () => {
    t = await startTestServer({ maxMutationsPerPush: 3 });
    const c = t.connect({ roomID: uniqueID('room') });
    await c.ready();
    c.push([1, 2, 3, 4].map((id) => c.mutation('put', { key: `k${id}`, value: id }, id)));
    await c.until(() => c.closed);
    expect(c.errors).toEqual([['InvalidPush', 'Push has 4 mutations; at most 3 are accepted per push']]);
  });

  it('drops a client that does not read instead of buffering without bound', async () => {
    t = await startTestServer({ maxSendBufferBytes: 256 * 1024, maxFrameBytes: 4 * 1024 * 1024 });
    const roomID = uniqueID('room');
    const slow = t.connect({ roomID });
    const writer = t.connect({ roomID });
    await Promise.all([slow.ready(), writer.ready()]);
    const socket = (slow.ws as unknown as { _socket: import('node:net').Socket })._socket;
    socket.pause();
    const value = 'v'.repeat(1024 * 1024);
    let id = 0;
    for (let i = 0; i < 200 && !(await serverDropped()); i++) {
      id = writer.mutate('put', { key: `k${i % 5}`, value: `${i}${value}` });
      await writer.acked(id);
    }
    expect(await serverDropped()).toBe(true);
    const { json } = await t.admin('GET', '/stats');
    expect(json.connections).toBe(1);
    slow.ws.terminate();

    async function serverDropped(): Promise<boolean> {
      const { json } = await t!.admin('GET', '/stats');
      return json.connections === 1;
    }
  });
});
