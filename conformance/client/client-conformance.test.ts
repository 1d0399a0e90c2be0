import { describe, expect, it } from 'vitest';
import { runScenario } from './engine/run-scenario';
import { createClient } from './factory';
import { formatResult } from './report';
import { allScenarios } from './scenarios/index';

describe('our client against every scenario (in-memory sockets)', () => {
  const runnable = allScenarios.filter((s) => s.skip === undefined);
  it.each(runnable.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    const result = await runScenario(scenario, { factory: createClient });
    expect(result.status, formatResult(result).join('\n')).toBe('passed');
  });

  it('reports the scenarios it cannot run, with why', async () => {
    const skipped = allScenarios.filter((s) => s.skip !== undefined);
    expect(skipped.map((s) => s.name)).toEqual(['recovery/pull-timeout']);
    const result = await runScenario(skipped[0]!, { factory: createClient });
    expect(result).toMatchObject({ status: 'skipped', skipReason: expect.stringContaining('public Reflect API') });
  });

  it('has unique scenario names, each with a spec reference and a description', () => {
    const names = allScenarios.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const scenario of allScenarios) {
      expect(scenario.spec, scenario.name).not.toBe('');
      expect(scenario.description, scenario.name).not.toBe('');
    }
  });

  it('keeps scenarios plain data: they survive a JSON round trip unchanged', () => {
    expect(JSON.parse(JSON.stringify(allScenarios))).toEqual(allScenarios);
  });
});
