/**
 * The registry of local stores of one origin (or data directory): which
 * shared stores exist, whose they are and when a client last used each one,
 * for old-database cleanup and for finding other stores of a user and room
 * (mutation recovery). Stores of format 1 were never registered: they are
 * found by name and registered when first seen.
 */
import { withTransaction } from '../dag/with-transaction';
import type { KvProvider } from '../kv/provider';
import type { KvStore } from '../kv/types';
import { logStoreName, parseStoreName, REGISTRY_STORE_NAME } from './store-names';

export interface RegisteredStore {
  readonly dataName: string;
  readonly logName: string;
  readonly userID: string;
  readonly roomID: string;
  readonly format: number;
  /** Format 2 and later. */
  readonly schemaVersion?: string;
  /** When a client last opened the store or sent a heartbeat in it (clock ms). */
  readonly lastUsedMs: number;
}

const STORES_KEY = 'stores';

function isRegisteredStore(value: unknown): value is RegisteredStore {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.dataName === 'string' &&
    typeof r.logName === 'string' &&
    typeof r.userID === 'string' &&
    typeof r.roomID === 'string' &&
    typeof r.format === 'number' &&
    typeof r.lastUsedMs === 'number'
  );
}

function readEntries(kv: KvStore): Promise<Map<string, RegisteredStore>> {
  return withTransaction(() => kv.read(), async (read) => entriesOf(await read.get(STORES_KEY)));
}

function entriesOf(value: unknown): Map<string, RegisteredStore> {
  const out = new Map<string, RegisteredStore>();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return out;
  for (const [name, entry] of Object.entries(value)) if (isRegisteredStore(entry)) out.set(name, entry);
  return out;
}

function update(kv: KvStore, change: (entries: Map<string, RegisteredStore>) => boolean): Promise<void> {
  return withTransaction(() => kv.write(), async (write) => {
    const entries = entriesOf(await write.get(STORES_KEY));
    if (!change(entries)) return;
    await write.put(STORES_KEY, Object.fromEntries(entries) as never);
    await write.commit();
  });
}

export class StoreRegistry {
  readonly #provider: KvProvider;
  #kv: Promise<KvStore> | undefined;

  constructor(provider: KvProvider) {
    this.#provider = provider;
  }

  /** Records that `dataName` was used now (registering it when new). */
  async touch(dataName: string, now: number): Promise<void> {
    const parsed = parseStoreName(dataName);
    if (parsed === undefined) return;
    await update(await this.#store(), (entries) => {
      const previous = entries.get(dataName);
      if (previous !== undefined && previous.lastUsedMs >= now) return false;
      entries.set(dataName, {
        dataName,
        logName: logStoreName(dataName),
        userID: parsed.userID,
        roomID: parsed.roomID,
        format: parsed.format,
        ...(parsed.schemaVersion === undefined ? {} : { schemaVersion: parsed.schemaVersion }),
        lastUsedMs: Math.max(now, previous?.lastUsedMs ?? now),
      });
      return true;
    });
  }

  /**
   * Every known store: the registered ones, plus format-1 stores found by
   * name (registered now, as used now: their age is counted from here).
   */
  async stores(now: number): Promise<RegisteredStore[]> {
    const kv = await this.#store();
    const names = (await this.#provider.list()) ?? [];
    const registered = await readEntries(kv);
    const unregistered = new Set<string>();
    for (const name of names) {
      const parsed = parseStoreName(name);
      if (parsed !== undefined && !registered.has(parsed.dataName)) unregistered.add(parsed.dataName);
    }
    if (unregistered.size > 0) {
      await update(kv, (entries) => {
        for (const dataName of unregistered) {
          const parsed = parseStoreName(dataName)!;
          if (entries.has(dataName)) continue;
          entries.set(dataName, {
            dataName,
            logName: logStoreName(dataName),
            userID: parsed.userID,
            roomID: parsed.roomID,
            format: parsed.format,
            ...(parsed.schemaVersion === undefined ? {} : { schemaVersion: parsed.schemaVersion }),
            lastUsedMs: now,
          });
        }
        return true;
      });
    }
    return [...(await readEntries(kv)).values()];
  }

  /** Deletes a store and its log, and forgets it. */
  async drop(entry: RegisteredStore): Promise<void> {
    await this.#provider.drop(entry.dataName);
    await this.#provider.drop(entry.logName);
    await update(await this.#store(), (entries) => entries.delete(entry.dataName));
  }

  async close(): Promise<void> {
    if (this.#kv !== undefined) await (await this.#kv).close();
  }

  #store(): Promise<KvStore> {
    return (this.#kv ??= this.#provider.open(REGISTRY_STORE_NAME));
  }
}
