import { afterAll, describe, expect, it } from 'vitest';
import { killChildServers, startChildServer } from './test-support/child-server';
import { freeLoopbackPort } from './test-support/postgres-server';

afterAll(() => killChildServers());

describe('npm run server -- --postgres', () => {
  it('exits with one clear line, no stack trace, when PostgreSQL cannot be reached', async () => {
    const port = await freeLoopbackPort();
    const error = await startChildServer(['--postgres', `postgres://app:hunter2@127.0.0.1:${port}/rooms`, '--log-level', 'error']).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(/^server exited \(1\) before listening/);
    expect(message).toContain(`roomsync server could not start: PostgreSQL at postgres://app:***@127.0.0.1:${port}/rooms is unreachable: connect ECONNREFUSED`);
    expect(message).not.toMatch(/hunter2|\n\s+at /);
  });
});
