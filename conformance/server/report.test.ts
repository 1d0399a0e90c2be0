import { describe, expect, it } from 'vitest';
import type { CheckResult } from './check';
import { formatJSON, formatReport } from './report';
import { summarize } from './run-server-conformance';

const results: CheckResult[] = [
  { name: 'connect/connected', required: true, description: 'd', status: 'pass', durationMs: 3 },
  {
    name: 'push/own-group-only',
    required: true,
    description: 'd',
    status: 'fail',
    message: 'client B was told about client A',
    expected: '{}',
    actual: '{"a":1}',
    durationMs: 9,
  },
  { name: 'auth/invalid-token', required: true, description: 'd', status: 'skip', message: 'no invalidToken', durationMs: 0 },
  { name: 'optional/pong-latency', required: false, description: 'd', status: 'fail', message: 'slow', durationMs: 80 },
];

describe('report', () => {
  const summary = summarize('ws://h:1', results);

  it('counts required checks only in the final line; optional failures are listed, not counted', () => {
    expect(summary).toMatchObject({ passed: 1, failed: 1, skipped: 1, optionalFailed: 1, ok: false });
    const text = formatReport(summary);
    expect(text.split('\n').at(-1)).toBe('1 passed, 1 failed');
    expect(text).toContain('optional checks failed: optional/pong-latency');
  });

  it('shows each failure with what was expected and what came, and each skip with why', () => {
    const text = formatReport(summary);
    expect(text).toContain(['  ✗ push/own-group-only (9 ms)', '      client B was told about client A', '      expected: {}', '      got:      {"a":1}'].join('\n'));
    expect(text).toContain('  – auth/invalid-token (0 ms)\n      skipped: no invalidToken');
    expect(text.indexOf('Required checks:')).toBeLessThan(text.indexOf('Optional checks'));
    expect(text.indexOf('optional/pong-latency')).toBeGreaterThan(text.indexOf('Optional checks'));
  });

  it('is ok when only optional checks fail', () => {
    expect(summarize('ws://h:1', [results[0]!, results[3]!]).ok).toBe(true);
  });

  it('has a JSON form with every result', () => {
    expect(JSON.parse(formatJSON(summary))).toEqual(JSON.parse(JSON.stringify(summary)));
  });
});
