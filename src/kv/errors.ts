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
