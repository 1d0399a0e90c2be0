import { describe, expect, it } from 'vitest';
import { ALL_CAPABILITIES, observedCapabilities, parseCapabilities, requiredCapabilities, scenarioNeeds } from './capabilities';
import type { Scenario } from './scenario';
import { allScenarios } from './scenarios/index';

const scenario = (fields: Partial<Scenario>): Scenario => ({ name: 't/t', spec: '-', description: '-', steps: [], ...fields });

describe('capabilities', () => {
  it('parses a comma-separated list, "none" for the public API only, and refuses unknown names', () => {
    expect(parseCapabilities('reconnect, pendingMutationCount')).toEqual(['reconnect', 'pendingMutationCount']);
    expect(parseCapabilities('none')).toEqual([]);
    expect(parseCapabilities(ALL_CAPABILITIES.join(','))).toEqual(ALL_CAPABILITIES);
    expect(() => parseCapabilities('reconnect,telepathy')).toThrow('unknown capabilities: telepathy');
  });

  it('reads what steps call as needed, and what they only observe as observed', () => {
    const s = scenario({
      client: { orphan: { mutations: 1 } },
      steps: [
        { step: 'reconnect' },
        { step: 'expectClient', online: true, pendingMutationCount: 0 },
        { step: 'expectCallback', name: 'onUpdateNeeded', count: 0 },
      ],
    });
    expect([...requiredCapabilities(s)]).toEqual(['sharedLocalStore', 'reconnect']);
    expect([...observedCapabilities(s)]).toEqual(['pendingMutationCount', 'onUpdateNeeded']);
    expect(scenarioNeeds({ ...s, needs: ['onUpdateNeeded'] })).toEqual(['onUpdateNeeded', 'sharedLocalStore', 'reconnect']);
  });

  it('every scenario declares what its steps cannot do without, and needs nothing it does not use', () => {
    for (const s of allScenarios) {
      const needs = new Set(s.needs ?? []);
      for (const capability of requiredCapabilities(s)) expect(needs.has(capability), `${s.name} must declare it needs ${capability}`).toBe(true);
      const used = new Set([...requiredCapabilities(s), ...observedCapabilities(s)]);
      for (const capability of needs) expect(used.has(capability), `${s.name} needs ${capability} but never uses it`).toBe(true);
      expect(needs.has('environment'), `${s.name}: the path, not a scenario, needs the environment`).toBe(false);
    }
  });
});
