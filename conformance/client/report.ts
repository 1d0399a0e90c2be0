import type { ScenarioResult } from './engine/run-scenario';
import type { ClientConformanceSummary } from './run-client-conformance';

const TRANSCRIPT_LINES = 12;

/** The readable report: one line per scenario, details under each failure, and a last line `N passed, N failed`. */
export function formatReport(summary: ClientConformanceSummary): string {
  const lines = [...summary.results.flatMap(formatResult), ''];
  if (summary.skipped > 0) lines.push(`${summary.skipped} skipped`);
  lines.push(`${summary.passed} passed, ${summary.failed} failed`);
  return lines.join('\n');
}

export function formatResult(result: ScenarioResult): string[] {
  if (result.status === 'passed') return [`✓ ${result.name}`];
  if (result.status === 'skipped') return [`– ${result.name} (skipped: ${result.skipReason ?? 'no reason given'})`];
  const failure = result.failure!;
  const lines = [`✗ ${result.name}`, `    step ${failure.stepIndex + 1}: ${JSON.stringify(failure.step ?? '(before the first step)')}`, `    ${failure.message}`];
  if (failure.expected !== undefined) lines.push(`    expected: ${failure.expected}`);
  if (failure.actual !== undefined) lines.push(`    got:      ${failure.actual}`);
  const transcript = result.transcript.slice(-TRANSCRIPT_LINES);
  if (transcript.length > 0) {
    lines.push(`    what happened${result.transcript.length > TRANSCRIPT_LINES ? ' (last lines)' : ''}:`);
    for (const line of transcript) lines.push(`      ${line}`);
  }
  return lines;
}
