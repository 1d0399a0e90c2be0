import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '../check';
import { formatReport } from '../report';
import { startReferenceServer, type ReferenceServerFixture } from '../reference-server-fixture';
import { runServerConformance } from '../run-server-conformance';
import { startProxy, type ProxyHooks } from './mitm-proxy';
import {
  acceptAnyVersion,
  applyDuplicatesTwice,
  dropCatchUpDeletes,
  offByOneBaseCookie,
  leakAcksToAllGroups,
  pullAnswersNothing,
  pullAddsUnchangedIDs,
  pullAnswersStaleIDs,
  pullLeaksOtherGroups,
  readMissingBaseCookieAsCurrent,
  readMissingBaseCookieAsNone,
  stringCookies,
} from './variants';

let server: ReferenceServerFixture;

beforeAll(async () => {
  server = await startReferenceServer();
});

afterAll(async () => {
  await server.stop();
});

async function runThroughProxy(hooks: ProxyHooks, only: string) {
  const proxy = await startProxy(server.url, hooks);
  try {
    return await runServerConformance({ url: proxy.url, only });
  } finally {
    await proxy.close();
  }
}

function result(results: readonly CheckResult[], name: string): CheckResult {
  const found = results.find((r) => r.name === name);
  if (found === undefined) throw new Error(`no result for ${name}`);
  return found;
}

describe('the runner against deliberately broken servers', () => {
  it('passes through an honest proxy (the proxy itself is transparent)', async () => {
    const summary = await runThroughProxy({}, 'push/,exactly-once/,catch-up/,connect/version');
    expect(summary.failed, formatReport(summary)).toBe(0);
  });

  it('(a) lastMutationIDChanges sent to every group: own-group-only fails', async () => {
    const summary = await runThroughProxy(leakAcksToAllGroups(), 'push/own-group-only,convergence/');
    const own = result(summary.results, 'push/own-group-only');
    expect(own.status).toBe('fail');
    expect(own.message).toMatch(/client B \(group 2\) was told the last mutation ids of client A \(group 1\), not in its client group/);
    expect(own.expected).toMatch(/only for clients of the receiving client group/);
    expect(summary.ok).toBe(false);
  });

  it('(b) duplicates applied again: both exactly-once checks fail showing the counter', async () => {
    const summary = await runThroughProxy(applyDuplicatesTwice(), 'exactly-once/,push/mutation-id-gap');
    const gap = result(summary.results, 'push/mutation-id-gap');
    expect(gap.status).toBe('fail');
    expect(gap.message).toMatch(/processed mutation 3 although mutation 2 never came/);
    const duplicate = result(summary.results, 'exactly-once/duplicate-push');
    expect(duplicate.status).toBe('fail');
    expect(duplicate.message).toMatch(/duplicate increment was applied again/);
    expect([duplicate.expected, duplicate.actual]).toEqual(['counter = 1', 'counter = 2']);
    const reconnect = result(summary.results, 'exactly-once/after-reconnect');
    expect(reconnect.status).toBe('fail');
    expect([reconnect.expected, reconnect.actual]).toEqual(['counter = 2', 'counter = 3']);
  });

  it('(c) deletes dropped from catch-up pokes: catch-up fails naming the stale keys', async () => {
    const summary = await runThroughProxy(dropCatchUpDeletes(), 'catch-up/');
    const catchUp = result(summary.results, 'catch-up/reconnect-with-deletes');
    expect(catchUp.status).toBe('fail');
    expect(catchUp.message).toMatch(/A's state differs from B's/);
    expect(catchUp.actual).toMatch(/unexpected "doc\/1"/);
    expect(catchUp.actual).toMatch(/unexpected "doc\/4"/);
  });

  it('(d) a v2 path served as v1: version-not-supported fails', async () => {
    const summary = await runThroughProxy(acceptAnyVersion(), 'connect/version-not-supported');
    const version = result(summary.results, 'connect/version-not-supported');
    expect(version.status).toBe('fail');
    expect(version.expected).toMatch(/VersionNotSupported/);
    expect(version.actual).toMatch(/"connected"/);
    expect(summary.failed).toBe(1);
  });

  it('(e) pokes with a wrong baseCookie: the cookie chain check fails naming the poke that did not follow', async () => {
    const summary = await runThroughProxy(offByOneBaseCookie(), 'push/cookie-chain');
    const chain = result(summary.results, 'push/cookie-chain');
    expect(chain.status).toBe('fail');
    expect(chain.message).toMatch(/a poke broke the cookie chain/);
    expect(chain.actual).toMatch(/has baseCookie \d+ but the client's cookie was \d+/);
  });

  it('(f) frames that break the schemas: the check fails quoting the frame', async () => {
    const summary = await runThroughProxy(stringCookies(), 'push/poke-to-pusher');
    const poke = result(summary.results, 'push/poke-to-pusher');
    expect(poke.status).toBe('fail');
    expect(poke.message).toMatch(/the server sent a frame that does not match the protocol: Invalid downstream poke message: \/1\/cookie/);
    expect(poke.actual).toMatch(/^\["poke",\{.*"cookie":"\d+"/);
  });

  it('a missing baseCookie: refused (as our server does) or read as none (as the original does), both pass', async () => {
    const refused = await runThroughProxy({}, 'connect/missing-baseCookie');
    expect(refused.failed, formatReport(refused)).toBe(0);
    const readAsNone = await runThroughProxy(readMissingBaseCookieAsNone(), 'connect/missing-baseCookie');
    expect(readAsNone.failed, formatReport(readAsNone)).toBe(0);
  });

  it('(g) a missing baseCookie accepted but read as up to date: connect/missing-baseCookie fails', async () => {
    const summary = await runThroughProxy(readMissingBaseCookieAsCurrent(), 'connect/missing-baseCookie');
    const check = result(summary.results, 'connect/missing-baseCookie');
    expect(check.status).toBe('fail');
    expect(check.message).toMatch(/accepted a connect without baseCookie but did not read it as none/);
    expect(check.expected).toMatch(/a poke from baseCookie null carrying the room/);
    expect(check.actual).toMatch(/has baseCookie \d+ but the client's cookie was null/);
  });

  it("recovery pulls with the group's unchanged ids too (more than the changes since the cookie) pass", async () => {
    const exact = await runThroughProxy({}, 'pull/recovery');
    expect(exact.failed, formatReport(exact)).toBe(0);
    const more = await runThroughProxy(pullAddsUnchangedIDs(), 'pull/recovery');
    expect(more.failed, formatReport(more)).toBe(0);
  });

  it('(h) recovery pulls answered with nothing: pull/recovery fails naming the missing ids', async () => {
    const summary = await runThroughProxy(pullAnswersNothing(), 'pull/recovery');
    const check = result(summary.results, 'pull/recovery');
    expect(check.status).toBe('fail');
    expect(check.message).toMatch(/the pull answer from cookie null lacks the group's changes since that cookie/);
    expect(check.actual).toBe('{}');
  });

  it('(i) recovery pulls with stale ids (fewer than the changes since the cookie): pull/recovery fails', async () => {
    const summary = await runThroughProxy(pullAnswersStaleIDs(), 'pull/recovery');
    const check = result(summary.results, 'pull/recovery');
    expect(check.status).toBe('fail');
    expect(check.message).toMatch(/lacks the group's changes since that cookie \(.+ → 2, .+ → 1\)/);
  });

  it("(j) recovery pulls naming a client outside the pulled group: pull/recovery fails", async () => {
    const summary = await runThroughProxy(pullLeaksOtherGroups(), 'pull/recovery');
    const check = result(summary.results, 'pull/recovery');
    expect(check.status).toBe('fail');
    expect(check.message).toMatch(/names ids that are not the group's/);
  });
});
