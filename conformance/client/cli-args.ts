import { parseArgs } from 'node:util';
import type { TransportKind } from './engine/run-scenario';

export interface ClientCliArgs {
  /** Module exporting createClient; undefined: our client. */
  readonly client: string | undefined;
  readonly only: string | undefined;
  readonly transport: TransportKind;
  readonly list: boolean;
}

export const USAGE = `Usage: npx tsx conformance/client/cli.ts [--client MODULE] [--only PATTERN] [--ws] [--list]

  --client MODULE  a module exporting createClient(options) with the public Reflect API (default: ours)
  --only PATTERN   run only scenarios whose name contains one of these comma-separated substrings
  --ws             run over a real ws server on 127.0.0.1 instead of in-memory sockets
  --list           list the scenarios with what each checks, and exit`;

/** A command line the runner does not understand. */
export class UsageError extends Error {
  readonly kind = 'Usage';
  override readonly name = 'UsageError';
}

export function parseClientCliArgs(argv: readonly string[]): ClientCliArgs | 'help' {
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: {
        client: { type: 'string' },
        only: { type: 'string' },
        ws: { type: 'boolean', default: false },
        list: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.help) return 'help';
    return { client: values.client, only: values.only, transport: values.ws ? 'ws' : 'memory', list: values.list ?? false };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
