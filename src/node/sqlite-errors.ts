/**
 * Typed failures of the SQLite stores (besides StoreClosedError and
 * TransactionClosedError from kv/errors, which they share with every store).
 */
import { StoreClosedError } from '../kv/errors';

/** A failure of one store file (or of the directory it would be in), naming it. */
export abstract class StoreFileError extends Error {
  abstract readonly kind: string;
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.path = path;
  }
}

/** A store file that is not a database, or whose pages are damaged. */
export class StoreCorruptError extends StoreFileError {
  readonly kind = 'StoreCorrupt';
  override readonly name = 'StoreCorruptError';
  constructor(path: string, options?: { cause?: unknown }) {
    super(path, `The store file ${path} is corrupt or not a roomsync store (move it away to start over)`, options);
  }
}

/** The data directory (or a store file in it) cannot be created or written. */
export class StoreNotWritableError extends StoreFileError {
  readonly kind = 'StoreNotWritable';
  override readonly name = 'StoreNotWritableError';
  constructor(path: string, options?: { cause?: unknown }) {
    super(path, `Cannot write the store at ${path}: ${reasonOf(options?.cause)}`, options);
  }
}

/** Another process kept the store's write lock for longer than the busy timeout. */
export class StoreBusyError extends StoreFileError {
  readonly kind = 'StoreBusy';
  override readonly name = 'StoreBusyError';
  constructor(path: string, waitedMs: number) {
    super(path, `The store ${path} stayed locked by another process for ${waitedMs} ms`);
  }
}

/** A store name that no file name can hold (it has unpaired UTF-16 surrogates). */
export class UnsupportedStoreNameError extends Error {
  readonly kind = 'UnsupportedStoreName';
  override readonly name = 'UnsupportedStoreNameError';
  constructor(storeName: string) {
    super(`Store name ${JSON.stringify(storeName)} is not well-formed Unicode`);
  }
}

const CORRUPT_CODES = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB']);
const NOT_WRITABLE_CODES = new Set(['SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PERM', 'EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST']);

/** The typed error for a failure of SQLite or the file system at `path`; other failures as they are. */
export function storeError(error: unknown, path: string): unknown {
  if (error instanceof StoreClosedError || error instanceof StoreFileError) return error;
  const code = codeOf(error);
  if (code === undefined) return error;
  if (CORRUPT_CODES.has(code) || code.startsWith('SQLITE_CORRUPT_')) return new StoreCorruptError(path, { cause: error });
  if (NOT_WRITABLE_CODES.has(code) || code.startsWith('SQLITE_READONLY_') || code.startsWith('SQLITE_CANTOPEN_')) {
    return new StoreNotWritableError(path, { cause: error });
  }
  return error;
}

export function isBusy(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'SQLITE_BUSY' || code?.startsWith('SQLITE_BUSY_') === true;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function reasonOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
