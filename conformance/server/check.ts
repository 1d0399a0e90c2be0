import type { CheckContext } from './check-context';

/** One named behaviour the runner verifies against a server. */
export interface Check {
  /** Stable, slash-separated, e.g. `push/own-group-only`; `--only` matches it. */
  readonly name: string;
  /** Required checks decide the exit code; optional ones are reported separately. */
  readonly required: boolean;
  /** One line: what a conforming server does. */
  readonly description: string;
  /** Throws CheckFailure or CheckSkipped; may return a detail line (e.g. a measured latency). */
  run(ctx: CheckContext): Promise<string | void>;
}

export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  readonly name: string;
  readonly required: boolean;
  readonly description: string;
  readonly status: CheckStatus;
  /** Why it failed or was skipped, or a detail of a pass. */
  readonly message?: string;
  readonly expected?: string;
  readonly actual?: string;
  readonly durationMs: number;
}
