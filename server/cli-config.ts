import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { extname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AuthHandler } from './auth/auth';
import { devAuthHandler } from './auth/auth';
import { createJwtAuthHandler } from './auth/jwt-auth';
import { createWebhookAuthHandler } from './auth/webhook-auth';
import { CliUsageError, type CliOptions } from './cli-args';
import type { MutatorsModule, ServerOptions } from './index';

/** What the CLI decided from its options and environment, besides storage. */
export interface CliServerConfig {
  /** Everything but storage, logger, admin key and mutators. */
  readonly options: ServerOptions;
  /** The app's mutators (run in workers unless --room-workers 0). */
  readonly mutatorsModule: MutatorsModule;
  /** The admin key and where it came from; undefined: the admin API is off. */
  readonly adminKey: { readonly key: string; readonly from: 'argv' | 'env' | 'file' } | undefined;
  /** Lines to log at warn level at startup. */
  readonly warnings: readonly string[];
}

/**
 * Without --mutators: no app mutators, only the conformance ones every server
 * registers. A module beside this one (server/ from the sources, dist/ in the
 * package), so the rooms still run in worker threads.
 */
const NO_APP_MUTATORS: MutatorsModule = {
  url: new URL(`./conformance-mutators${extname(new URL(import.meta.url).pathname)}`, import.meta.url).href,
  exportName: 'conformanceMutators',
};

/** Reads a secret file, trimmed; a clear usage error when it cannot be read. */
function secretFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new CliUsageError(`Cannot read ${what} from ${path}: ${(error as Error).message}`);
  }
}

export function mutatorsModuleOf(spec: string | undefined, cwd: string): MutatorsModule {
  if (spec === undefined) return NO_APP_MUTATORS;
  const hash = spec.lastIndexOf('#');
  const file = hash === -1 ? spec : spec.slice(0, hash);
  const url = /^[a-z]+:\/\//.test(file) ? file : pathToFileURL(isAbsolute(file) ? file : resolve(cwd, file)).href;
  return { url, exportName: hash === -1 ? 'mutators' : spec.slice(hash + 1) };
}

function authHandlerOf(opts: CliOptions, env: NodeJS.ProcessEnv): AuthHandler {
  switch (opts.auth.kind) {
    case 'dev':
      return devAuthHandler;
    case 'webhook':
      return createWebhookAuthHandler({ url: opts.auth.url });
    case 'jwt': {
      const j = opts.jwt;
      const secret = j.secretFile !== undefined ? secretFile(j.secretFile, 'the JWT secret') : env.ROOMSYNC_JWT_SECRET;
      const publicKey = j.publicKeyFile !== undefined ? secretFile(j.publicKeyFile, 'the JWT public key') : env.ROOMSYNC_JWT_PUBLIC_KEY;
      const given = [secret, publicKey, j.jwksURL].filter((s) => s !== undefined && s !== '').length;
      if (given !== 1) {
        throw new CliUsageError('--auth jwt needs exactly one of: ROOMSYNC_JWT_SECRET or --jwt-secret-file, ROOMSYNC_JWT_PUBLIC_KEY or --jwt-public-key-file, --jwt-jwks-url');
      }
      return createJwtAuthHandler({
        ...(secret ? { secret } : {}),
        ...(publicKey ? { publicKey } : {}),
        ...(j.jwksURL === undefined ? {} : { jwksURL: j.jwksURL }),
        ...(j.userClaim === undefined ? {} : { userClaim: j.userClaim }),
        ...(j.issuer === undefined ? {} : { issuer: j.issuer }),
        ...(j.audience === undefined ? {} : { audience: j.audience }),
        ...(j.roomClaim === undefined ? {} : { roomClaim: j.roomClaim }),
      });
    }
  }
}

/**
 * Turns the command line and environment into server options. Production
 * (--production or NODE_ENV=production) refuses dev auth, allows only the
 * page's own origin and the listed ones, and never invents an admin key.
 */
export function cliServerConfig(opts: CliOptions, env: NodeJS.ProcessEnv, cwd: string): CliServerConfig {
  const production = opts.production || env.NODE_ENV === 'production';
  const warnings: string[] = [];
  if (production && opts.auth.kind === 'dev') {
    throw new CliUsageError('--auth dev lets anyone in as anyone; in production choose --auth jwt or --auth webhook URL');
  }
  if (opts.auth.kind === 'dev') warnings.push('dev auth: any token is taken as the user id; development only (see docs/security.md)');
  let adminKey: CliServerConfig['adminKey'];
  if (opts.adminKeyFile !== undefined) adminKey = { key: secretFile(opts.adminKeyFile, 'the admin key'), from: 'file' };
  else if (env.ROOMSYNC_ADMIN_KEY) adminKey = { key: env.ROOMSYNC_ADMIN_KEY, from: 'env' };
  else if (opts.adminKey !== undefined) {
    adminKey = { key: opts.adminKey, from: 'argv' };
    warnings.push('--admin-key is visible to every user of this machine (ps); prefer ROOMSYNC_ADMIN_KEY or --admin-key-file');
  }
  const mutatorsModule = mutatorsModuleOf(opts.mutators, cwd);
  const l = opts.limits;
  const options: ServerOptions = {
    authHandler: authHandlerOf(opts, env),
    allowAnonymous: opts.allowAnonymous,
    allowedOrigins: opts.allowedOrigins,
    trustedProxies: opts.trustedProxies,
    allowLoopbackOrigins: !production,
    requireRooms: opts.requireRooms,
    ...(opts.roomWorkers === undefined || opts.roomWorkers === 0 ? {} : { roomWorkers: opts.roomWorkers }),
    ...(opts.spinWait ? {} : { spinWait: false }),
    ...(opts.staticDir === undefined ? {} : { staticDir: opts.staticDir }),
    ...(opts.maxFrameBytes === undefined ? {} : { maxFrameBytes: opts.maxFrameBytes }),
    ...(opts.maxMutationsPerPush === undefined ? {} : { maxMutationsPerPush: opts.maxMutationsPerPush }),
    ...(l.maxRoomBytes === undefined ? {} : { maxRoomBytes: l.maxRoomBytes }),
    ...(l.maxRooms === undefined ? {} : { maxRooms: l.maxRooms }),
    ...(l.roomsPerUser === undefined ? {} : { roomsPerUser: l.roomsPerUser }),
    ...(l.roomsPerAddress === undefined ? {} : { roomsPerAddress: l.roomsPerAddress }),
    ...(l.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: l.idleTimeoutMs }),
    ...(l.maxConnectionsPerAddress === undefined ? {} : { maxConnectionsPerAddress: l.maxConnectionsPerAddress }),
    ...(l.newClientsPerUser === undefined ? {} : { newClientsPerUser: l.newClientsPerUser }),
    ...(l.mutationsPerSecond === undefined ? {} : { mutationsPerSecond: l.mutationsPerSecond }),
    ...(l.bytesPerSecond === undefined ? {} : { bytesPerSecond: l.bytesPerSecond }),
    ...(l.mutatorTimeoutMs === undefined ? {} : { mutatorTimeoutMs: l.mutatorTimeoutMs }),
    ...(!opts.presence ? { presence: false } : l.presenceGraceMs === undefined ? {} : { presence: { graceMs: l.presenceGraceMs } }),
  };
  return { options, mutatorsModule, adminKey, warnings };
}

/** Most room processes the CLI starts by default (each is a Node process: memory). */
export const MAX_DEFAULT_ROOM_PROCESSES = 8;

/**
 * How many room processes the CLI runs: as given; else, on SQLite (the
 * single-machine server), max(2, cores) up to MAX_DEFAULT_ROOM_PROCESSES;
 * none with --room-workers, on PostgreSQL (a node scales out by more nodes)
 * or with rooms in memory (they would die with their process).
 */
export function roomProcessesFor(opts: CliOptions, usesPostgres: boolean, cores = availableParallelism()): number {
  if (opts.roomProcesses !== undefined) return opts.roomProcesses;
  // dataDir undefined: --memory.
  if (opts.roomWorkers !== undefined || usesPostgres || opts.dataDir === undefined) return 0;
  return Math.min(MAX_DEFAULT_ROOM_PROCESSES, Math.max(2, cores));
}
