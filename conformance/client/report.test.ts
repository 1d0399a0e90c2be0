import { describe, expect, it } from 'vitest';
import { formatReport } from './report';

describe('formatReport', () => {
  it('lists each scenario, details a failure with its step, and ends with the counts', () => {
    const report = formatReport({
      passed: 1,
      failed: 1,
      skipped: 1,
      ok: false,
      results: [
        { name: 'a/ok', status: 'passed', transcript: [] },
        {
          name: 'b/broken',
          status: 'failed',
          failure: { stepIndex: 2, step: { step: 'expectConnect', at: 5000 }, message: 'the client connected at t=0 ms', expected: 't=5000 ms', actual: 't=0 ms' },
          transcript: ['t=0 server drops the socket (abrupt)'],
        },
        { name: 'c/skip', status: 'skipped', skipReason: 'no API', transcript: [] },
      ],
    });
    expect(report).toBe(
      [
        '✓ a/ok',
        '✗ b/broken',
        '    step 3: {"step":"expectConnect","at":5000}',
        '    the client connected at t=0 ms',
        '    expected: t=5000 ms',
        '    got:      t=0 ms',
        '    what happened:',
        '      t=0 server drops the socket (abrupt)',
        '– c/skip (skipped: no API)',
        '',
        '1 skipped',
        '1 passed, 1 failed',
      ].join('\n'),
    );
  });
});
