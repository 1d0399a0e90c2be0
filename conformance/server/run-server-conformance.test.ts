import { describe, expect, it } from 'vitest';
import { CheckFailure, CheckSkipped } from '../shared/check-failure';
import { fakeEnvironment } from '../shared/fake-socket';
import type { Check } from './check';
import { runServerConformance } from './run-server-conformance';

const check = (name: string, required: boolean, run: Check['run']): Check => ({ name, required, description: name, run });

describe('runServerConformance', () => {
  it('turns each outcome into a result: pass (with detail), fail, skip, crash', async () => {
    const { env } = fakeEnvironment();
    const seen: string[] = [];
    const summary = await runServerConformance({
      url: 'ws://h:1/',
      environment: env,
      onResult: (r) => seen.push(r.name),
      checks: [
        check('a/pass', true, async () => 'measured 3 ms'),
        check('a/fail', true, async () => {
          throw new CheckFailure('wrong', 'x', 'y');
        }),
        check('a/skip', true, async () => {
          throw new CheckSkipped('not configured');
        }),
        check('a/crash', true, async () => {
          throw new TypeError('oops');
        }),
        check('b/optional', false, async () => {
          throw new CheckFailure('slow');
        }),
      ],
    });
    expect(summary.url).toBe('ws://h:1');
    expect(summary.results.map((r) => [r.name, r.status, r.message])).toEqual([
      ['a/pass', 'pass', 'measured 3 ms'],
      ['a/fail', 'fail', 'wrong'],
      ['a/skip', 'skip', 'not configured'],
      ['a/crash', 'fail', 'the check itself crashed: TypeError: oops'],
      ['b/optional', 'fail', 'slow'],
    ]);
    expect(summary.results[1]).toMatchObject({ expected: 'x', actual: 'y' });
    expect(seen).toEqual(['a/pass', 'a/fail', 'a/skip', 'a/crash', 'b/optional']);
    expect(summary).toMatchObject({ passed: 1, failed: 2, skipped: 1, optionalFailed: 1, ok: false });
  });

  it('runs only the checks --only selects', async () => {
    const { env } = fakeEnvironment();
    const ran: string[] = [];
    const record = (name: string) => check(name, true, async () => void ran.push(name));
    await runServerConformance({ url: 'ws://h:1', environment: env, only: 'push/', checks: [record('connect/x'), record('push/y')] });
    expect(ran).toEqual(['push/y']);
  });

  it('closes every socket a check opened, even when it failed', async () => {
    const { env, sockets } = fakeEnvironment();
    await runServerConformance({
      url: 'ws://h:1',
      environment: env,
      checks: [
        check('opens', true, async (ctx) => {
          const opening = ctx.openRaw('ws://h:1/x', undefined, 'raw');
          sockets[0]!.accept();
          await opening;
          throw new CheckFailure('after opening');
        }),
      ],
    });
    expect(sockets[0]!.readyState).toBe(3);
  });

  it('gives each check rooms of its own', async () => {
    const { env } = fakeEnvironment();
    const rooms: string[] = [];
    const makeRoom = check('rooms/x', true, async (ctx) => void rooms.push(await ctx.newRoom(), await ctx.newRoom()));
    await runServerConformance({ url: 'ws://h:1', environment: env, checks: [makeRoom] });
    expect(rooms[0]).toMatch(/^conformance-rooms-x-[A-Za-z0-9_-]{10}$/);
    expect(new Set(rooms).size).toBe(2);
  });
});
