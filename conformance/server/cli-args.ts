import { parseArgs } from 'node:util';

export interface CliArgs {
  readonly server: string;
  readonly configFile: string | undefined;
  readonly json: boolean;
  readonly only: string | undefined;
}

export const USAGE = `Usage: npm run conformance -- --server ws://HOST:PORT [--config FILE] [--json] [--only PATTERN] | --list

  --server URL     the server's socket origin (ws:// or wss://)
  --config FILE    JSON config: room creation, tokens, mutator names, timeouts (see conformance/README.md)
  --json           print a JSON summary on stdout (the report goes to stderr)
  --only PATTERN   run only matching checks: comma-separated substrings or globs (connect/*,push)
  --list           list the checks and exit`;

/** A command line the runner does not understand; the message is meant for the user. */
export class UsageError extends Error {
  readonly kind = 'Usage';
  override readonly name = 'UsageError';
}

export function parseCliArgs(argv: readonly string[]): CliArgs | 'help' | 'list' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        server: { type: 'string' },
        config: { type: 'string' },
        json: { type: 'boolean', default: false },
        only: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        list: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return 'help';
  if (values.list) return 'list';
  if (values.server === undefined) throw new UsageError('--server is required');
  if (!/^wss?:\/\/[^/]+/.test(values.server)) throw new UsageError(`--server must be a ws:// or wss:// URL, got ${JSON.stringify(values.server)}`);
  return { server: values.server, configFile: values.config, json: values.json ?? false, only: values.only };
}
