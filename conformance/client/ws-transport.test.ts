import { describe, expect, it } from 'vitest';
import { runScenario } from './engine/run-scenario';
import { createClient } from './factory';
import { formatResult } from './report';
import { allScenarios } from './scenarios/index';

/** Scenarios whose frames, closes and reconnects cross real sockets; the clock stays fake. */
const OVER_REAL_SOCKETS = [
  'handshake/first-connect',
  'handshake/reconnect-params',
  'push/resend-unacknowledged',
  'poke/out-of-order',
  'ping/quiet-socket',
  'auth/refresh-on-Unauthorized',
  'invalid-downstream/not-json',
];

describe('scenarios over a real ws server on 127.0.0.1', () => {
  it.each(OVER_REAL_SOCKETS)('%s', async (name) => {
    const scenario = allScenarios.find((s) => s.name === name);
    expect(scenario, name).toBeDefined();
    const result = await runScenario(scenario!, { factory: createClient, transport: 'ws' });
    expect(result.status, formatResult(result).join('\n')).toBe('passed');
  });
});
