/** Typed failures of the key/value stores. */

/** The store was closed by us, or closed or deleted under us (another tab, the browser). */
export class StoreClosedError extends Error {
  readonly kind = 'StoreClosed';
  override readonly name = 'StoreClosedError';
  constructor(message = 'Store is closed', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A transaction was used after commit() or release(). */
export class TransactionClosedError extends Error {
  readonly kind = 'TransactionClosed';
  override readonly name = 'TransactionClosedError';
  constructor() {
    super('Transaction is closed');
  }
}

/**
 * A write transaction could not be applied atomically (IndexedDB ended it
 * while it was still reading, so another tab could have written in between).
 * Nothing was written; the caller may run it again.
 */
export class StoreConflictError extends Error {
  readonly kind = 'StoreConflict';
  override readonly name = 'StoreConflictError';
  constructor(message = 'The store transaction ended before it was committed; nothing was written') {
    super(message);
  }
}

/** SPEC §5: the store name is required. */
export class InvalidStoreNameError extends Error {
  readonly kind = 'InvalidStoreName';
  override readonly name = 'InvalidStoreNameError';
  constructor() {
    super('name is required and must be non-empty');
  }
}

export function assertStoreName(name: string): void {
  if (typeof name !== 'string' || name === '') throw new InvalidStoreNameError();
}
