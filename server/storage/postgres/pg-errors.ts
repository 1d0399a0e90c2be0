import pg from 'pg';
import { StorageUnavailableError } from '../types';

/**
 * SQLSTATE classes that say "not now" rather than "never": connection
 * exceptions, transaction rollbacks (serialization, deadlock), insufficient
 * resources, lock not available (lock_timeout), operator intervention
 * (shutdown, query canceled), system errors.
 */
const TRANSIENT_CLASSES = new Set(['08', '40', '53', '55', '57', '58']);
/** idle_in_transaction_session_timeout ended the session; in failed transaction. */
const TRANSIENT_CODES = new Set(['25P03', '25P04']);

/** True when the failure is PostgreSQL being unreachable or busy, not the statement being wrong. */
export function isTransientPgError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof StorageUnavailableError) return true;
  // Not an answer of PostgreSQL: the socket (ECONNREFUSED, ECONNRESET, EPIPE, …) or the pool (connect timeout, connection ended).
  if (!(error instanceof pg.DatabaseError)) return true;
  const code = error.code ?? '';
  return TRANSIENT_CLASSES.has(code.slice(0, 2)) || TRANSIENT_CODES.has(code);
}

/** Rethrows a transient failure as StorageUnavailableError (its cause kept), anything else as it is. */
export function classifyPgError(error: unknown, what: string): Error {
  if (error instanceof StorageUnavailableError) return error;
  if (isTransientPgError(error)) return new StorageUnavailableError(`PostgreSQL is unavailable: ${what}: ${(error as Error).message}`, { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}
