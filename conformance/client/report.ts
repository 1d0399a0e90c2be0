import type { Capability } from './capabilities';
import type { ApiPath, ScenarioResult } from './engine/run-scenario';
import type { ClientConformanceSummary } from './run-client-conformance';

const TRANSCRIPT_LINES = 12;

const PATHS: Record<ApiPath, string> = {
  injected: 'injected path (the engine\'s clock, sockets and visibility in the environment option)',
  public: 'public-API path (SPEC §3 options only; the clock faked globally, a real WebSocket on loopback, the global document)',
};

/** What was run: the path and the client's capabilities. */
export function formatHeader(api: ApiPath, capabilities: readonly Capability[]): string {
  return `Client suite, ${PATHS[api]}\ncapabilities: ${capabilities.length === 0 ? 'none (the public API of SPEC.md only)' : capabilities.join(', ')}`;
}

/** The readable report: one line per scenario, details under each failure, and a last line `N passed, N failed`. */
export function formatReport(summary: Omit<ClientConformanceSummary, 'api'>): string {
  const lines = [...summary.results.flatMap(formatResult), ''];
  if (summary.skipped > 0) lines.push(`${summary.skipped} skipped`);
  lines.push(`${summary.passed} passed, ${summary.failed} failed`);
  return lines.join('\n');
}

export function formatResult(result: ScenarioResult): string[] {
  if (result.status === 'passed') {
    return [`✓ ${result.name}${result.unchecked === undefined ? '' : ` (${result.unchecked.join(' and ')} unchecked: the client lacks ${result.unchecked.length === 1 ? 'it' : 'them'})`}`];
  }
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
