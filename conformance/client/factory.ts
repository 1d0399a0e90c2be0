/**
 * How the suite creates the client under test. The default is ours; another
 * implementation is a module exporting `createClient` with this shape
 * (`--client <module>` on the command line).
 */
import type { ReadonlyJSONValue } from '../../protocol/json';
import type { ReadTransaction } from '../../src/db/transaction-types';
import { Reflect, type ReflectOptions } from '../../src/reflect';
import { conformanceMutators, type ConformanceMutators } from '../../server/conformance-mutators';

export { conformanceMutators };
export type { ConformanceMutators };

/** The options the suite passes: the public Reflect options, with the conformance mutators and the environment hooks. */
export type ClientOptions = ReflectOptions<ConformanceMutators>;

/** The public API the suite uses. */
export interface ClientUnderTest {
  readonly clientID: string;
  /** A promise in the original API (known once the local store is open); a plain string is accepted too. */
  readonly clientGroupID: Promise<string> | string;
  readonly online: boolean;
  readonly pendingMutationCount: number;
  readonly connectionStatus: { readonly state: 'disconnected' | 'connecting' | 'connected' };
  readonly mutate: { readonly [name: string]: (args: never) => Promise<unknown> };
  query<R>(body: (tx: ReadTransaction) => Promise<R> | R): Promise<R>;
  reconnect(): void;
  disconnect(): void;
  close(): Promise<void>;
}

export type ClientFactory = (options: ClientOptions) => ClientUnderTest;

/** Our client. */
export const createClient: ClientFactory = (options) => new Reflect(options);

/** The whole key space of a client, as a plain object in key order. */
export async function readAll(client: ClientUnderTest): Promise<Record<string, ReadonlyJSONValue>> {
  const entries = await client.query((tx) => tx.scan().entries().toArray());
  return Object.fromEntries(entries);
}

/** Loads `createClient` from a module file (relative to the working directory) or a package name. */
export async function loadClientFactory(specifier: string | undefined): Promise<ClientFactory> {
  if (specifier === undefined) return createClient;
  const { pathToFileURL } = await import('node:url');
  const { resolve } = await import('node:path');
  const { existsSync } = await import('node:fs');
  const url = existsSync(resolve(specifier)) ? pathToFileURL(resolve(specifier)).href : specifier;
  const module = (await import(url)) as { createClient?: unknown };
  if (typeof module.createClient !== 'function') {
    throw new Error(`${specifier} does not export a createClient(options) function`);
  }
  return module.createClient as ClientFactory;
}
