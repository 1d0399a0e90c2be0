import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '../types';
import { classifyPgError, isTransientPgError } from './pg-errors';

function databaseError(code: string): pg.DatabaseError {
  const e = new pg.DatabaseError('x', 1, 'error');
  e.code = code;
  return e;
}

describe('PostgreSQL errors', () => {
  it('are transient when PostgreSQL is away or busy, and when the socket or pool failed', () => {
    for (const code of ['57P01', '08006', '40001', '40P01', '53300', '55P03', '25P03', '57014']) expect(isTransientPgError(databaseError(code))).toBe(true);
    for (const code of ['EPIPE', 'ECONNRESET', 'ECONNREFUSED']) expect(isTransientPgError(Object.assign(new Error(code), { code }))).toBe(true);
    expect(isTransientPgError(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it('are not transient when the statement is wrong', () => {
    for (const code of ['22P05', '23505', '42P01', '54000']) expect(isTransientPgError(databaseError(code))).toBe(false);
    expect(classifyPgError(databaseError('23505'), 'x')).not.toBeInstanceOf(StorageUnavailableError);
    expect(classifyPgError(databaseError('57P01'), 'committing')).toBeInstanceOf(StorageUnavailableError);
  });
});
