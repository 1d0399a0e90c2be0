import { runScenario, type ScenarioResult, type TransportKind } from './engine/run-scenario';
import { createClient, type ClientFactory } from './factory';
import type { Scenario } from './scenario';
import { allScenarios } from './scenarios/index';

export interface ClientConformanceOptions {
  /** @default our client */
  readonly factory?: ClientFactory;
  /** @default 'memory' */
  readonly transport?: TransportKind;
  /** Comma-separated substrings of scenario names; empty or absent: all. */
  readonly only?: string;
  /** @default every scenario in scenarios/ */
  readonly scenarios?: readonly Scenario[];
}

export interface ClientConformanceSummary {
  readonly results: readonly ScenarioResult[];
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly ok: boolean;
}

export function selectScenarios(scenarios: readonly Scenario[], only: string | undefined): Scenario[] {
  const patterns = (only ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
  return patterns.length === 0 ? [...scenarios] : scenarios.filter((s) => patterns.some((p) => s.name.includes(p)));
}

/** Runs the scenarios one after the other, each against a fresh client. */
export async function runClientConformance(options: ClientConformanceOptions = {}): Promise<ClientConformanceSummary> {
  const factory = options.factory ?? createClient;
  const results: ScenarioResult[] = [];
  for (const scenario of selectScenarios(options.scenarios ?? allScenarios, options.only)) {
    results.push(await runScenario(scenario, { factory, transport: options.transport ?? 'memory' }));
  }
  const count = (status: ScenarioResult['status']) => results.filter((r) => r.status === status).length;
  const failed = count('failed');
  return { results, passed: count('passed'), failed, skipped: count('skipped'), ok: failed === 0 };
}
