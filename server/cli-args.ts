import { isIP } from 'node:net';
import { ANSWER_WINDOW_MS } from './engine/spin-wait';
import { MAX_TIMER_MS } from './limits';
import { isLogLevel, type LogLevel } from './logger';

export type CliAuth = { readonly kind: 'dev' } | { readonly kind: 'jwt' } | { readonly kind: 'webhook'; readonly url: string };

export interface CliOptions {
  readonly port: number;
  readonly host: string;
  /** undefined: keep everything in memory (--memory). */
  readonly dataDir: string | undefined;
  /** True when --data-dir or --memory was given (then DATABASE_URL is not used). */
  readonly localStorageGiven: boolean;
  /** A PostgreSQL URL (--postgres): rooms in PostgreSQL, shared by any number of nodes. */
  readonly postgres: string | undefined;
  /** Pooled PostgreSQL connections per node (one more LISTENs). */
  readonly pgPoolSize: number | undefined;
  /** Given on the command line (visible in `ps`: prefer ROOMSYNC_ADMIN_KEY or --admin-key-file). */
  readonly adminKey: string | undefined;
  readonly adminKeyFile: string | undefined;
  readonly requireRooms: boolean;
  readonly logLevel: LogLevel;
  readonly staticDir: string | undefined;
  readonly maxFrameBytes: number | undefined;
  readonly maxMutationsPerPush: number | undefined;
  readonly synchronous: 'FULL' | 'NORMAL';
  /** Production defaults: no dev auth, no loopback origins, no generated admin key. Also NODE_ENV=production. */
  readonly production: boolean;
  readonly auth: CliAuth;
  readonly jwt: {
    readonly secretFile: string | undefined;
    readonly publicKeyFile: string | undefined;
    readonly jwksURL: string | undefined;
    readonly userClaim: string | undefined;
    readonly issuer: string | undefined;
    readonly audience: string | undefined;
    readonly roomClaim: string | undefined;
  };
  readonly allowAnonymous: boolean;
  readonly allowedOrigins: readonly string[];
  /** Addresses of the reverse proxies whose X-Forwarded-For names the client. */
  readonly trustedProxies: readonly string[];
  /** FILE or FILE#export of the app's mutators; undefined: none (only the conformance mutators). */
  readonly mutators: string | undefined;
  readonly roomWorkers: number | undefined;
  /** Processes serving rooms, each owning its rooms' sockets (0: rooms in this process); undefined: the default (roomProcessesFor). */
  readonly roomProcesses: number | undefined;
  readonly limits: {
    readonly maxRoomBytes?: number;
    readonly maxRooms?: number;
    readonly roomsPerUser?: number;
    readonly roomsPerAddress?: number;
    readonly maxConnectionsPerAddress?: number;
    readonly newClientsPerUser?: number;
    readonly idleTimeoutMs?: number;
    readonly mutationsPerSecond?: number;
    readonly bytesPerSecond?: number;
    readonly mutatorTimeoutMs?: number;
    readonly presenceGraceMs?: number;
  };
  /** Threads may wait for each other's messages turning (--no-spin-wait turns it off). */
  readonly spinWait: boolean;
  /** Keep a presence key per connected client (--no-presence turns it off). */
  readonly presence: boolean;
  readonly help: boolean;
}

export class CliUsageError extends Error {
  readonly kind = 'CliUsage';
  override readonly name = 'CliUsageError';
}

export const USAGE = `Usage: roomsync-server [options]   (from the repository: npm run server -- [options])
  --port N                  port to listen on; 0 picks a free one (default 8080)
  --host H                  address to bind (default 127.0.0.1)
  --data-dir DIR            where the SQLite database lives (default ./data)
  --memory                  keep rooms in memory only (nothing survives a restart)
  --postgres URL            rooms in PostgreSQL (or env DATABASE_URL), shared by any number of nodes (docs/deploy.md)
  --pg-pool-size N          pooled PostgreSQL connections per node, plus one that LISTENs (default 10)
  --production              production defaults (also NODE_ENV=production): a real --auth is required,
                            only the page's own origin (and --allowed-origins), no generated admin key
  --auth dev|jwt|webhook URL  how tokens are checked (default dev: any token is the user id; development only)
  --jwt-secret-file FILE    HS256 secret (or env ROOMSYNC_JWT_SECRET)
  --jwt-public-key-file FILE  PEM public key for RS256/ES256/EdDSA (or env ROOMSYNC_JWT_PUBLIC_KEY)
  --jwt-jwks-url URL        a JWKS endpoint (keys cached)
  --jwt-user-claim NAME     claim holding the user id (default sub)
  --jwt-issuer ISS          required iss
  --jwt-audience AUD        required aud
  --jwt-room-claim NAME     claim that must name the room (a room id, a list of them, or "*")
  --allow-anonymous         connect clients without a token as the user "anonymous"
  --allowed-origins A,B     browser origins allowed besides the page's own (or *)
  --admin-key-file FILE     key of the admin API (or env ROOMSYNC_ADMIN_KEY; --admin-key KEY shows in ps)
  --require-rooms           refuse connects to rooms not created through the admin API
  --mutators FILE[#name]    the app's mutators: an ES module (.js, .mjs; .ts with node --import tsx) and its export
                            (default export name: mutators); without it only the conformance mutators
  --room-workers N          worker threads running rooms when there are no room processes (default
                            max(2, cores)); 0 runs them in the main thread
  --room-processes N        N processes serving rooms, each owning its rooms' sockets (a push never
                            crosses threads); a process with a mutator stuck in synchronous code is
                            restarted, and the clients of its rooms reconnect (default on SQLite:
                            max(2, cores) up to 8; otherwise 0, rooms in this process's worker threads)
  --mutator-timeout-ms N    a mutator running longer is stopped and skipped (default 5000)
  --max-room-bytes N        room size limit: what its entries add to a catch-up (default 64 MiB)
  --max-rooms N             rooms in total that connects may create (default 10000)
  --rooms-per-user N        rooms a user may create per hour (default 100)
  --rooms-per-address N     rooms an address may create per hour (default 100)
  --max-connections-per-address N  sockets one address may hold open (default 1000; loopback uncapped without --trusted-proxies)
  --new-clients-per-user N  new client ids one user may add to a room per hour (default 2000; anonymous: per address)
  --trusted-proxies A,B     addresses of your reverse proxies: their X-Forwarded-For names the client address
                            (per-address limits); without it every client behind a proxy counts as the proxy
  --mutations-per-second N  per connection, then back-pressure (default 20000; burst 100000)
  --bytes-per-second N      per connection, then back-pressure (default 8 MiB)
  --idle-timeout-ms N       close connections silent this long (default 30000)
  --presence-grace-ms N     a client stays present this long after its last connection closed (default 10000)
  --no-spin-wait            threads waiting for each other's messages always sleep (default: they turn
                            for up to ${ANSWER_WINDOW_MS} ms while the machine has a core to spare)
  --no-presence             keep no presence keys (_roomsync/presence/<clientID>)
  --log-level LEVEL         debug | info | warn | error | silent (default info)
  --static-dir DIR          serve files from DIR (index.html for client routes)
  --max-frame-bytes N       largest accepted frame (default 1 MiB)
  --max-mutations-per-push N  (default 1000)
  --synchronous FULL|NORMAL SQLite sync mode (default FULL: a poked batch survives power loss)
  --help`;

const DEFAULT_PORT = 8080;
const MAX_INT = Number.MAX_SAFE_INTEGER;

/** Integer options that land in `limits`, with their smallest value (and largest, when it is not MAX_INT). */
const LIMIT_FLAGS: Readonly<Record<string, [keyof CliOptions['limits'], number, number?]>> = {
  '--max-room-bytes': ['maxRoomBytes', 1],
  '--max-rooms': ['maxRooms', 0],
  '--rooms-per-user': ['roomsPerUser', 0],
  '--rooms-per-address': ['roomsPerAddress', 0],
  '--max-connections-per-address': ['maxConnectionsPerAddress', 1],
  '--new-clients-per-user': ['newClientsPerUser', 1],
  '--idle-timeout-ms': ['idleTimeoutMs', 1, MAX_TIMER_MS],
  '--mutations-per-second': ['mutationsPerSecond', 1],
  '--bytes-per-second': ['bytesPerSecond', 1],
  '--mutator-timeout-ms': ['mutatorTimeoutMs', 1, MAX_TIMER_MS],
  '--presence-grace-ms': ['presenceGraceMs', 0, MAX_TIMER_MS],
};

/** String options that land in `jwt`. */
const JWT_FLAGS: Readonly<Record<string, keyof CliOptions['jwt']>> = {
  '--jwt-secret-file': 'secretFile',
  '--jwt-public-key-file': 'publicKeyFile',
  '--jwt-jwks-url': 'jwksURL',
  '--jwt-user-claim': 'userClaim',
  '--jwt-issuer': 'issuer',
  '--jwt-audience': 'audience',
  '--jwt-room-claim': 'roomClaim',
};

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends object ? Mutable<T[K]> : T[K] };

export function parseCliArgs(argv: readonly string[]): CliOptions {
  const opts: Mutable<CliOptions> = {
    port: DEFAULT_PORT,
    host: '127.0.0.1',
    dataDir: './data',
    localStorageGiven: false,
    postgres: undefined,
    pgPoolSize: undefined,
    adminKey: undefined,
    adminKeyFile: undefined,
    requireRooms: false,
    logLevel: 'info',
    staticDir: undefined,
    maxFrameBytes: undefined,
    maxMutationsPerPush: undefined,
    synchronous: 'FULL',
    production: false,
    auth: { kind: 'dev' },
    jwt: { secretFile: undefined, publicKeyFile: undefined, jwksURL: undefined, userClaim: undefined, issuer: undefined, audience: undefined, roomClaim: undefined },
    allowAnonymous: false,
    allowedOrigins: [],
    trustedProxies: [],
    mutators: undefined,
    roomWorkers: undefined,
    roomProcesses: undefined,
    limits: {},
    presence: true,
    spinWait: true,
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
    const limit = LIMIT_FLAGS[name];
    if (limit !== undefined) {
      opts.limits[limit[0]] = integer(name, value(), limit[1], limit[2] ?? MAX_INT);
      continue;
    }
    const jwt = JWT_FLAGS[name];
    if (jwt !== undefined) {
      opts.jwt[jwt] = value();
      continue;
    }
    switch (name) {
      case '--port':
        opts.port = integer(name, value(), 0, 65535);
        break;
      case '--host':
        opts.host = value();
        break;
      case '--data-dir':
        opts.dataDir = value();
        opts.localStorageGiven = true;
        break;
      case '--memory':
        opts.dataDir = undefined;
        opts.localStorageGiven = true;
        break;
      case '--admin-key':
        opts.adminKey = value();
        break;
      case '--admin-key-file':
        opts.adminKeyFile = value();
        break;
      case '--require-rooms':
        opts.requireRooms = true;
        break;
      case '--production':
        opts.production = true;
        break;
      case '--auth': {
        const kind = value();
        if (kind === 'dev' || kind === 'jwt') opts.auth = { kind };
        else if (kind === 'webhook') {
          const url = argv[++i];
          if (url === undefined || !/^https?:\/\//.test(url)) throw new CliUsageError('--auth webhook needs the URL of the endpoint (http:// or https://)');
          opts.auth = { kind, url };
        } else throw new CliUsageError(`--auth must be dev, jwt or webhook URL, not ${kind}`);
        break;
      }
      case '--allow-anonymous':
        opts.allowAnonymous = true;
        break;
      case '--allowed-origins':
        opts.allowedOrigins = commaList(value());
        break;
      case '--trusted-proxies': {
        opts.trustedProxies = commaList(value());
        const notAddress = opts.trustedProxies.find((a) => isIP(a.replace(/^\[(.*)\]$/, '$1')) === 0);
        if (notAddress !== undefined) throw new CliUsageError(`--trusted-proxies takes IP addresses (no ranges, no names), not ${notAddress}`);
        break;
      }
      case '--mutators':
        opts.mutators = value();
        break;
      case '--room-workers':
        opts.roomWorkers = integer(name, value(), 0, 256);
        break;
      case '--room-processes':
        opts.roomProcesses = integer(name, value(), 0, 256);
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
        opts.maxFrameBytes = integer(name, value(), 1, MAX_INT);
        break;
      case '--max-mutations-per-push':
        opts.maxMutationsPerPush = integer(name, value(), 1, MAX_INT);
        break;
      case '--postgres': {
        const url = value();
        if (!/^postgres(ql)?:\/\//.test(url)) throw new CliUsageError('--postgres needs a postgres:// URL');
        opts.postgres = url;
        break;
      }
      case '--pg-pool-size':
        opts.pgPoolSize = integer(name, value(), 1, 1000);
        break;
      case '--synchronous': {
        const v = value().toUpperCase();
        if (v !== 'FULL' && v !== 'NORMAL') throw new CliUsageError('--synchronous must be FULL or NORMAL');
        opts.synchronous = v;
        break;
      }
      case '--no-spin-wait':
        opts.spinWait = false;
        break;
      case '--no-presence':
        opts.presence = false;
        break;
      case '--help':
      case '-h':
        opts.help = true;
        break;
      default:
        throw new CliUsageError(`Unknown option ${raw}`);
    }
  }
  if (opts.postgres !== undefined && opts.localStorageGiven) throw new CliUsageError('Choose one storage: --postgres, --data-dir or --memory');
  if (opts.roomProcesses !== undefined && opts.roomProcesses > 0 && opts.roomWorkers !== undefined) {
    throw new CliUsageError('Choose --room-processes or --room-workers: room processes run their rooms in their own main thread');
  }
  return opts;
}

function integer(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || n < min || n > max) throw new CliUsageError(`${name} must be an integer from ${min} to ${max}, not ${text}`);
  return n;
}

/** `a, b,,c` → ['a', 'b', 'c']. */
function commaList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
