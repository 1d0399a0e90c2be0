import { isLogLevel, type LogLevel } from './logger';

export interface CliOptions {
  readonly port: number;
  readonly host: string;
  /** undefined: keep everything in memory (--memory). */
  readonly dataDir: string | undefined;
  readonly adminKey: string | undefined;
  readonly requireRooms: boolean;
  readonly logLevel: LogLevel;
  readonly staticDir: string | undefined;
  readonly maxFrameBytes: number | undefined;
  readonly maxMutationsPerPush: number | undefined;
  readonly synchronous: 'FULL' | 'NORMAL';
  readonly help: boolean;
}

export class CliUsageError extends Error {
  readonly kind = 'CliUsage';
  override readonly name = 'CliUsageError';
}

export const USAGE = `Usage: npm run server -- [options]
  --port N                  port to listen on; 0 picks a free one (default 8080)
  --host H                  address to bind (default 127.0.0.1)
  --data-dir DIR            where the SQLite database lives (default ./data)
  --memory                  keep rooms in memory only (nothing survives a restart)
  --admin-key KEY           key of the admin API (default: a random key, printed)
  --require-rooms           refuse connects to rooms not created through the admin API
  --log-level LEVEL         debug | info | warn | error | silent (default info)
  --static-dir DIR          serve files from DIR (index.html for client routes)
  --max-frame-bytes N       largest accepted frame (default 1 MiB)
  --max-mutations-per-push N  (default 1000)
  --synchronous FULL|NORMAL SQLite sync mode (default FULL: a poked batch survives power loss)
  --help`;

const DEFAULT_PORT = 8080;

export function parseCliArgs(argv: readonly string[]): CliOptions {
  const opts = {
    port: DEFAULT_PORT,
    host: '127.0.0.1',
    dataDir: './data' as string | undefined,
    adminKey: undefined as string | undefined,
    requireRooms: false,
    logLevel: 'info' as LogLevel,
    staticDir: undefined as string | undefined,
    maxFrameBytes: undefined as number | undefined,
    maxMutationsPerPush: undefined as number | undefined,
    synchronous: 'FULL' as 'FULL' | 'NORMAL',
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    const eq = raw.indexOf('=');
    const name = eq === -1 ? raw : raw.slice(0, eq);
    const value = (): string => {
      if (eq !== -1) return raw.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined) throw new CliUsageError(`${name} needs a value`);
      return v;
    };
    switch (name) {
      case '--port':
        opts.port = integer(name, value(), 0, 65535);
        break;
      case '--host':
        opts.host = value();
        break;
      case '--data-dir':
        opts.dataDir = value();
        break;
      case '--memory':
        opts.dataDir = undefined;
        break;
      case '--admin-key':
        opts.adminKey = value();
        break;
      case '--require-rooms':
        opts.requireRooms = true;
        break;
      case '--log-level': {
        const v = value();
        if (!isLogLevel(v)) throw new CliUsageError(`--log-level must be debug, info, warn, error or silent, not ${v}`);
        opts.logLevel = v;
        break;
      }
      case '--static-dir':
        opts.staticDir = value();
        break;
      case '--max-frame-bytes':
        opts.maxFrameBytes = integer(name, value(), 1, Number.MAX_SAFE_INTEGER);
        break;
      case '--max-mutations-per-push':
        opts.maxMutationsPerPush = integer(name, value(), 1, Number.MAX_SAFE_INTEGER);
        break;
      case '--synchronous': {
        const v = value().toUpperCase();
        if (v !== 'FULL' && v !== 'NORMAL') throw new CliUsageError('--synchronous must be FULL or NORMAL');
        opts.synchronous = v;
        break;
      }
      case '--help':
      case '-h':
        opts.help = true;
        break;
      default:
        throw new CliUsageError(`Unknown option ${raw}`);
    }
  }
  return opts;
}

function integer(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || n < min || n > max) throw new CliUsageError(`${name} must be an integer from ${min} to ${max}, not ${text}`);
  return n;
}
