/**
 * Where a client keeps its local stores: a family of named KvStores, like the
 * IndexedDB databases of one origin. The client opens several by name (the
 * shared data store of a user and room, its write-ahead log, the registry of
 * databases) and old-database cleanup lists and drops them.
 *
 * Every store opened by name from one provider (and from every other provider
 * over the same place: other tabs, other processes) sees the same data, and a
 * KvWrite is atomic against every other writer of that store.
 */
import type { KvStore } from './types';

export interface KvProvider {
  /** Opens the store `name`, creating it empty when missing. */
  open(name: string): Promise<KvStore>;
  /** Names of the stores that exist; undefined when the platform cannot list them. */
  list(): Promise<readonly string[] | undefined>;
  /** Deletes the store `name` and its data. Deleting a missing store is not an error. */
  drop(name: string): Promise<void>;
  /** Whether the data outlives the process (false for memory). */
  readonly durable: boolean;
  /**
   * A commit is about as cheap as a function call (SQLite in the same
   * process): then mutate() resolves only once its mutation is in the
   * write-ahead log, so a process killed right after loses nothing. Browsers
   * leave it off: an IndexedDB write per mutation would slow mutate tenfold,
   * and a closing page's writes still complete.
   */
  readonly cheapCommits?: boolean;
}
