import { parseArgs } from 'node:util';

export interface CliArgs {
  readonly server: string;
  /** Further --server URLs: more nodes of the same server, clients spread over all of them. */
  readonly moreServers: readonly string[];
  readonly configFile: string | undefined;
  readonly json: boolean;
  readonly only: string | undefined;
}

export const USAGE = `Usage: roomsync-conformance --server ws://HOST:PORT [--server ws://… …] [--config FILE] [--json] [--only PATTERN] | --list
       roomsync-conformance client [options]   (the client suite; client --help)
       (from the repository: npm run conformance -- [options])

  --server URL     the server's socket origin (ws:// or wss://); repeat it for several nodes of one
                   server (sharing rooms, e.g. on PostgreSQL): each check's clients are spread over them
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
        server: { type: 'string', multiple: true },
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
  const servers = values.server ?? [];
  if (servers.length === 0) throw new UsageError('--server is required');
  for (const server of servers) if (!/^wss?:\/\/[^/]+/.test(server)) throw new UsageError(`--server must be a ws:// or wss:// URL, got ${JSON.stringify(server)}`);
  return { server: servers[0]!, moreServers: servers.slice(1), configFile: values.config, json: values.json ?? false, only: values.only };
}
