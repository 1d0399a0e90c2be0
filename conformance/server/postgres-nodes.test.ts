import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeCluster, type NodeCluster } from '../../server/test-support/node-cluster';
import { formatReport } from './report';
import { runServerConformance } from './run-server-conformance';

/** The reference server as N processes on one real PostgreSQL (`--postgres`), checked by the server runner. */
let cluster: NodeCluster;

beforeAll(async () => {
  cluster = await startNodeCluster(3);
}, 60_000);
afterAll(() => cluster?.stop(), 30_000);

describe('the reference server on PostgreSQL', () => {
  it('passes every required check against one node', async () => {
    const summary = await runServerConformance({ url: cluster.nodes[0]!.url });
    expect(summary.failed, formatReport(summary)).toBe(0);
    expect(summary.ok).toBe(true);
  }, 120_000);

  it('passes every required check with each check\'s clients spread over three nodes', async () => {
    const [a, b, c] = cluster.nodes;
    const summary = await runServerConformance({ url: a!.url, moreURLs: [b!.url, c!.url] });
    expect(summary.failed, formatReport(summary)).toBe(0);
    expect(summary.url).toBe(`${a!.url} ${b!.url} ${c!.url}`);
  }, 120_000);
});
