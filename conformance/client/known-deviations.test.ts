import { describe, expect, it } from 'vitest';
import { runScenario } from './engine/run-scenario';
import { createClient } from './factory';
import { knownDeviations } from './scenarios/known-deviations';

describe('known deviations of our client (expected to fail until fixed)', () => {
  it.each(knownDeviations.map((d) => [d.scenario.name, d] as const))('%s', async (_name, deviation) => {
    const result = await runScenario(deviation.scenario, { factory: createClient });
    expect(result.status, deviation.why).toBe('failed');
    expect(result.failure?.step?.step, deviation.why).toBe('expectConnect');
  });
});
