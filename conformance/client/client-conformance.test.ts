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

  it('runs every scenario: none is skipped for our client (mutation recovery included)', () => {
    expect(allScenarios.filter((s) => s.skip !== undefined).map((s) => s.name)).toEqual([]);
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
