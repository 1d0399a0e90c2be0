/**
 * How the suite creates the client under test. The default is ours; another
 * implementation is a module exporting `createClient` with this shape, and
 * `capabilities` listing the extras it has (`--client <module>` on the command line).
 */
import type { ReadonlyJSONValue } from '../../protocol/json';
import type { ReadTransaction } from '../../src/db/transaction-types';
import { Reflect, type ReflectOptions } from '../../src/reflect';
import { conformanceMutators, type ConformanceMutators } from '../../server/conformance-mutators';
import { OUR_CAPABILITIES, parseCapabilities, type Capability } from './capabilities';
import { loadOtherStores } from '../../src/persist/store-kit';
import { loadTabMerge } from '../../src/persist/tab-sync';
import { loadPresenceCode } from '../../src/presence/reflect-presence';
import { loadMemoryKv } from '../../src/kv/memory-kit';

// Our client loads some of its code with import() when it first needs it (mutation recovery, presence, the tab merge, the
// memory stores), once per page. Run from the sources, that load goes through a module loader's channel that a settle
// cannot watch (tsx's hooks thread, vitest's module runner), so a scenario could move the fake clock on before the code is
// there: ours is loaded up front, through the loaders the client itself uses. (The packaged client reads a file, which a
// settle waits for.)
await Promise.all([loadOtherStores(), loadTabMerge(), loadPresenceCode(), loadMemoryKv()]);

export { conformanceMutators };
export type { ConformanceMutators };

/**
 * The options the suite passes: on the public-API path only those of SPEC §3
 * (and the callbacks the client declares); on the injected path also
 * `environment` and `kvStore`.
 */
export type ClientOptions = ReflectOptions<ConformanceMutators>;

/** The API the suite uses: SPEC.md's public API, and the extras a client may have (capabilities.ts). */
export interface ClientUnderTest {
  /** A string in ours, a promise in the original 0.13 API; either is accepted. */
  readonly clientID: Promise<string> | string;
  /** A promise in the original API (known once the local store is open); a plain string is accepted too. */
  readonly clientGroupID: Promise<string> | string;
  readonly online: boolean;
  readonly mutate: { readonly [name: string]: (args: never) => Promise<unknown> };
  query<R>(body: (tx: ReadTransaction) => Promise<R> | R): Promise<R>;
  close(): Promise<void>;
  /** The pendingMutationCount capability. */
  readonly pendingMutationCount?: number;
  /** The connectionStatus capability. */
  readonly connectionStatus?: { readonly state: 'disconnected' | 'connecting' | 'connected' };
  /** The reconnect capability. */
  reconnect?(): void;
  /** The disconnect capability. */
  disconnect?(): void;
}

export type ClientFactory = (options: ClientOptions) => ClientUnderTest;

/** What a `--client` module exports. */
export interface ClientModule {
  readonly createClient: ClientFactory;
  /** The extras the client has. @default none: SPEC.md's public API only */
  readonly capabilities?: readonly Capability[];
}

/** Our client. */
export const createClient: ClientFactory = (options) => new Reflect(options);

/** Ours has every capability. */
export const capabilities = OUR_CAPABILITIES;

/** The whole key space of a client, as a plain object in key order. */
export async function readAll(client: ClientUnderTest): Promise<Record<string, ReadonlyJSONValue>> {
  const entries = await client.query((tx) => tx.scan().entries().toArray());
  return Object.fromEntries(entries);
}

/**
 * Loads a client module from a file (relative to the working directory) or a
 * package name; undefined: ours. Its `capabilities` export may be an array or
 * a comma-separated string.
 */
export async function loadClientModule(specifier: string | undefined): Promise<Required<ClientModule>> {
  if (specifier === undefined) return { createClient, capabilities };
  const { pathToFileURL } = await import('node:url');
  const { resolve } = await import('node:path');
  const { existsSync } = await import('node:fs');
  const url = existsSync(resolve(specifier)) ? pathToFileURL(resolve(specifier)).href : specifier;
  const module = (await import(url)) as { createClient?: unknown; capabilities?: unknown };
  if (typeof module.createClient !== 'function') {
    throw new Error(`${specifier} does not export a createClient(options) function`);
  }
  return { createClient: module.createClient as ClientFactory, capabilities: readCapabilities(specifier, module.capabilities) };
}

function readCapabilities(specifier: string, declared: unknown): Capability[] {
  if (declared === undefined) return [];
  if (typeof declared === 'string') return parseCapabilities(declared);
  if (Array.isArray(declared) && declared.every((name) => typeof name === 'string')) return parseCapabilities(declared.join(','));
  throw new Error(`${specifier} exports capabilities that are neither a list of names nor a comma-separated string`);
}
