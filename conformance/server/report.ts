import type { CheckResult } from './check';
import type { ConformanceSummary } from './run-server-conformance';

const MARK = { pass: '✓', fail: '✗', skip: '–' } as const;

/** One check as report lines. */
export function formatResult(result: CheckResult): string {
  const lines = [`  ${MARK[result.status]} ${result.name} (${result.durationMs} ms)`];
  if (result.status === 'fail') {
    lines.push(`      ${result.message ?? 'failed'}`);
    if (result.expected !== undefined) lines.push(`      expected: ${result.expected}`);
    if (result.actual !== undefined) lines.push(`      got:      ${result.actual}`);
  } else if (result.status === 'skip') {
    lines.push(`      skipped: ${result.message ?? 'no reason given'}`);
  } else if (result.message !== undefined) {
    lines.push(`      ${result.message}`);
  }
  return lines.join('\n');
}

/** One line per finished check, for progress while the run goes on. */
export function formatProgress(result: CheckResult): string {
  return `  ${MARK[result.status]} ${result.name}${result.required ? '' : ' (optional)'}`;
}

/** The readable report: required checks, then optional ones, then the final `N passed, N failed` line. */
export function formatReport(summary: ConformanceSummary): string {
  const required = summary.results.filter((r) => r.required);
  const optional = summary.results.filter((r) => !r.required);
  const sections = [`roomsync server conformance against ${summary.url}`, '', 'Required checks:', ...required.map(formatResult)];
  if (optional.length > 0) {
    sections.push('', 'Optional checks (do not count as failures):', ...optional.map(formatResult));
  }
  const optionalFailures = optional.filter((r) => r.status === 'fail').map((r) => r.name);
  sections.push('');
  if (summary.skipped > 0) sections.push(`${summary.skipped} skipped`);
  if (optionalFailures.length > 0) sections.push(`optional checks failed: ${optionalFailures.join(', ')}`);
  sections.push(`${summary.passed} passed, ${summary.failed} failed`);
  return sections.join('\n');
}

/** The machine-readable summary printed with --json. */
export function formatJSON(summary: ConformanceSummary): string {
  return JSON.stringify(summary, null, 2);
}
