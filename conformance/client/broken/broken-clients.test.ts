import { describe, expect, it } from 'vitest';
import { capabilities as ourCapabilities, createClient } from '../factory';
import { runClientConformance } from '../run-client-conformance';
import { brokenVariants } from './variants';

describe('deliberately broken clients fail the matching scenarios', () => {
  it.each(brokenVariants.map((v) => [v.name, v] as const))('%s', async (_name, variant) => {
    const summary = await runClientConformance({ factory: variant.wrap(createClient), capabilities: ourCapabilities });
    const failed = summary.results.filter((r) => r.status === 'failed');
    const failedNames = failed.map((r) => r.name);
    for (const name of variant.breaks) expect(failedNames, `${variant.name} should fail ${name}`).toContain(name);
    // The breakage is specific: the basic handshake still passes.
    expect(failedNames).not.toContain('handshake/first-connect');
    for (const result of failed) {
      expect(result.failure?.message, result.name).not.toMatch(/the engine or the client threw/);
    }
  });
});
