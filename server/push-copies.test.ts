import { afterEach, describe, expect, it } from 'vitest';
import type { HostBatchRequest } from './engine/engine-types';
import type { ServerOptions } from './index';
import { uniqueID } from './test-support/test-client';
import { startTestServer } from './test-support/test-server';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** The batch requests a real server's room hands its engine host for two pushes. */
async function requestsSeen(options: ServerOptions): Promise<HostBatchRequest[]> {
  const t = await startTestServer(options);
  stops.push(() => t.close());
  const seen: HostBatchRequest[] = [];
  const host = t.server.host;
  const batch = host.batch.bind(host);
  host.batch = (roomID, request) => {
    seen.push(request);
    return batch(roomID, request);
  };
  const c = t.connect({ roomID: uniqueID('copies') });
  await c.ready();
  await c.acked(c.mutate('put', { key: 'a', value: 'x'.repeat(1000) }));
  await c.acked(c.mutate('put', { key: 'b', value: 2 }));
  return seen;
}

describe('a push waiting for its batch is kept once on the main thread', () => {
  it('as the text of its frame alone with rooms in workers', async () => {
    const seen = await requestsSeen({ mutatorsModule: { url: new URL('./test-support/hostile-mutators.ts', import.meta.url).href }, roomWorkers: 1 });
    const pushes = seen.flatMap((r) => r.pushes);
    expect(pushes.length).toBeGreaterThanOrEqual(2);
    for (const p of pushes) {
      expect(p).not.toHaveProperty('push');
      expect(typeof (p as { frame: string }).frame).toBe('string');
    }
  });

  it('as its parsed body alone with rooms in the main thread', async () => {
    const seen = await requestsSeen({});
    const pushes = seen.flatMap((r) => r.pushes);
    expect(pushes.length).toBeGreaterThanOrEqual(2);
    for (const p of pushes) {
      expect(p).not.toHaveProperty('frame');
      expect('push' in p ? p.push.mutations : undefined).toHaveLength(1);
    }
  });
});
