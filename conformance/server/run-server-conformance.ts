import { CheckFailure, CheckSkipped } from '../shared/check-failure';
import type { ConformanceEnvironment } from '../shared/environment';
import { nodeEnvironment } from '../shared/node-environment';
import type { Check, CheckResult } from './check';
import { CheckContext } from './check-context';
import { matchesOnly } from './check-filter';
import { ALL_CHECKS } from './checks/all-checks';
import { DEFAULT_CONFIG, type ConformanceConfig } from './config';

export interface RunServerConformanceOptions {
  /** The server's socket origin, e.g. `ws://127.0.0.1:8080`. */
  readonly url: string;
  /**
   * More nodes of the same server (sharing its rooms, e.g. on one
   * PostgreSQL): each check's clients are spread over `url` and these in turn.
   * @default none
   */
  readonly moreURLs?: readonly string[];
  /** @default DEFAULT_CONFIG (suits the reference server) */
  readonly config?: ConformanceConfig;
  /** Comma-separated substrings or globs of check names (see matchesOnly). @default every check */
  readonly only?: string;
  /** @default ALL_CHECKS */
  readonly checks?: readonly Check[];
  /** @default nodeEnvironment() (real clock, sockets, randomness, fetch) */
  readonly environment?: ConformanceEnvironment;
  /** Called as each check finishes (for progress output). */
  readonly onResult?: (result: CheckResult) => void;
}

export interface ConformanceSummary {
  readonly url: string;
  readonly results: readonly CheckResult[];
  /** Required checks only. */
  readonly passed: number;
  /** Required checks only. */
  readonly failed: number;
  readonly skipped: number;
  readonly optionalPassed: number;
  readonly optionalFailed: number;
  /** True when no required check failed. */
  readonly ok: boolean;
}

/** Runs the checks one after another against the server at `url`; never throws for a misbehaving server. */
export async function runServerConformance(options: RunServerConformanceOptions): Promise<ConformanceSummary> {
  const env = options.environment ?? nodeEnvironment();
  const config = options.config ?? DEFAULT_CONFIG;
  const origin = options.url.replace(/\/+$/, '');
  const origins = [origin, ...(options.moreURLs ?? []).map((u) => u.replace(/\/+$/, ''))];
  const results: CheckResult[] = [];
  for (const check of (options.checks ?? ALL_CHECKS).filter((c) => matchesOnly(c.name, options.only))) {
    const result = await runCheck(check, new CheckContext(env, config, origin, check.name, origins), env);
    results.push(result);
    options.onResult?.(result);
  }
  return summarize(origins.join(' '), results);
}

async function runCheck(check: Check, ctx: CheckContext, env: ConformanceEnvironment): Promise<CheckResult> {
  const base = { name: check.name, required: check.required, description: check.description };
  const start = env.clock.now();
  const elapsed = () => Math.round(env.clock.now() - start);
  try {
    const detail = await check.run(ctx);
    ctx.assertChainsUnbroken();
    ctx.assertAllFramesValid();
    return { ...base, status: 'pass', ...(detail ? { message: detail } : {}), durationMs: elapsed() };
  } catch (error) {
    if (error instanceof CheckSkipped) return { ...base, status: 'skip', message: error.message, durationMs: elapsed() };
    if (error instanceof CheckFailure) {
      return {
        ...base,
        status: 'fail',
        message: error.message,
        ...(error.expected === undefined ? {} : { expected: error.expected }),
        ...(error.actual === undefined ? {} : { actual: error.actual }),
        durationMs: elapsed(),
      };
    }
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { ...base, status: 'fail', message: `the check itself crashed: ${message}`, durationMs: elapsed() };
  } finally {
    await ctx.closeAll();
  }
}

export function summarize(url: string, results: readonly CheckResult[]): ConformanceSummary {
  const required = results.filter((r) => r.required);
  const optional = results.filter((r) => !r.required);
  const failed = required.filter((r) => r.status === 'fail').length;
  return {
    url,
    results,
    passed: required.filter((r) => r.status === 'pass').length,
    failed,
    skipped: results.filter((r) => r.status === 'skip').length,
    optionalPassed: optional.filter((r) => r.status === 'pass').length,
    optionalFailed: optional.filter((r) => r.status === 'fail').length,
    ok: failed === 0,
  };
}
