/**
 * The client for Node: the same Reflect, with Node's defaults. A `dataDir`
 * keeps the local stores (data and write-ahead log) in SQLite files there, so
 * mutations made offline survive the process and are pushed by the next one
 * of the same user and room; without it they live in memory, as before. The
 * socket defaults to the `ws` package's WebSocket.
 */
import WebSocket from 'ws';
import type { SocketConstructor } from '../connection/socket';
import type { MutatorDefs } from '../db/transaction-types';
import { MemoryKvProvider } from '../kv/memory-provider';
import { Reflect as BaseReflect, type ReflectOptions } from '../reflect';
import { sqliteKvProvider } from './sqlite-kv-provider';

export interface NodeReflectOptions<MD extends MutatorDefs> extends ReflectOptions<MD> {
  /**
   * Keep the local stores in SQLite files in this directory (created when
   * missing). Every process and client of one user and room over the same
   * directory shares them. Give either this or `kvStore`.
   * @default undefined (the stores live in memory and end with the process)
   */
  readonly dataDir?: string;
}

export class Reflect<MD extends MutatorDefs = MutatorDefs> extends BaseReflect<MD> {
  constructor(options: NodeReflectOptions<MD>) {
    super(nodeOptions(options));
  }
}

/** The options the platform-neutral Reflect gets: a store and a socket chosen for Node unless given. */
export function nodeOptions<MD extends MutatorDefs>(options: NodeReflectOptions<MD>): ReflectOptions<MD> {
  const { dataDir, ...rest } = options;
  if (dataDir !== undefined && rest.kvStore !== undefined) {
    throw new Error('ReflectOptions: give dataDir or kvStore, not both.');
  }
  const kvStore =
    rest.kvStore ?? (dataDir !== undefined ? sqliteKvProvider({ dataDir }) : rest.idbFactory === undefined ? new MemoryKvProvider() : undefined);
  return {
    ...rest,
    ...(kvStore === undefined ? {} : { kvStore }),
    environment: { WebSocket: WebSocket as unknown as SocketConstructor, ...rest.environment },
  };
}
