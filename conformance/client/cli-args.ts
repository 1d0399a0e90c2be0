import { parseArgs } from 'node:util';
import { ALL_CAPABILITIES, parseCapabilities, type Capability } from './capabilities';
import type { ApiPath, TransportKind } from './engine/run-scenario';

export interface ClientCliArgs {
  /** Module exporting createClient; undefined: our client. */
  readonly client: string | undefined;
  /** Overrides the module's capabilities export; undefined: the module's. */
  readonly capabilities: readonly Capability[] | undefined;
  /** undefined: injected for a client with the environment capability, else public. */
  readonly api: ApiPath | undefined;
  readonly only: string | undefined;
  readonly transport: TransportKind;
  readonly list: boolean;
}

export const USAGE = `Usage: npx tsx conformance/client/cli.ts [--client MODULE] [--capabilities LIST] [--public-api] [--only PATTERN] [--ws] [--list]

  --client MODULE      a module exporting createClient(options) and, optionally, capabilities (default: ours)
  --capabilities LIST  the extras the client has, comma-separated, or none; overrides the module's capabilities
                       export (${ALL_CAPABILITIES.join(', ')})
  --public-api         drive the client through SPEC.md's public API only: the clock faked globally
                       (@sinonjs/fake-timers), the global WebSocket on a real loopback socket, the global document
                       for page visibility (the default for a client without the environment capability)
  --only PATTERN       run only scenarios whose name contains one of these comma-separated substrings
  --ws                 on the injected path, a real ws server on 127.0.0.1 instead of in-memory sockets
  --list               list the scenarios with what each checks and needs, and exit`;

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
        capabilities: { type: 'string' },
        'public-api': { type: 'boolean', default: false },
        only: { type: 'string' },
        ws: { type: 'boolean', default: false },
        list: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.help) return 'help';
    return {
      client: values.client,
      capabilities: values.capabilities === undefined ? undefined : parseCapabilities(values.capabilities),
      api: values['public-api'] ? 'public' : undefined,
      only: values.only,
      transport: values.ws ? 'ws' : 'memory',
      list: values.list ?? false,
    };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
