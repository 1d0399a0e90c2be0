import { OUR_CAPABILITIES, type Capability } from './capabilities';
import { runScenario, type ApiPath, type ScenarioResult, type TransportKind } from './engine/run-scenario';
import { createClient, type ClientFactory } from './factory';
import type { Scenario } from './scenario';
import { allScenarios } from './scenarios/index';

export interface ClientConformanceOptions {
  /** @default our client */
  readonly factory?: ClientFactory;
  /** The extras the client has (capabilities.ts). @default every one with our client, none with another factory */
  readonly capabilities?: readonly Capability[];
  /** @default 'injected' for a client with the environment capability, else 'public' */
  readonly api?: ApiPath;
  /** The injected path's sockets. @default 'memory' */
  readonly transport?: TransportKind;
  /** Comma-separated substrings of scenario names; empty or absent: all. */
  readonly only?: string;
  /** @default every scenario in scenarios/ */
  readonly scenarios?: readonly Scenario[];
}

export interface ClientConformanceSummary {
  readonly api: ApiPath;
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
  const capabilities = options.capabilities ?? (options.factory === undefined ? OUR_CAPABILITIES : []);
  const api = options.api ?? (capabilities.includes('environment') ? 'injected' : 'public');
  const results: ScenarioResult[] = [];
  for (const scenario of selectScenarios(options.scenarios ?? allScenarios, options.only)) {
    results.push(await runScenario(scenario, { factory, capabilities, api, transport: options.transport ?? 'memory' }));
  }
  const count = (status: ScenarioResult['status']) => results.filter((r) => r.status === status).length;
  const failed = count('failed');
  return { api, results, passed: count('passed'), failed, skipped: count('skipped'), ok: failed === 0 };
}
