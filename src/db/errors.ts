/** Typed errors of the local store. Switch on `kind`. */

export class TransactionClosedError extends Error {
  readonly kind = 'TransactionClosed';
  override readonly name = 'TransactionClosedError';
  constructor() {
    super('Transaction is closed');
  }
}

export class InvalidJSONValueError extends Error {
  readonly kind = 'InvalidJSONValue';
  override readonly name = 'InvalidJSONValueError';
  constructor(
    readonly key: string,
    readonly path: string,
    what: string,
  ) {
    super(`Value for key ${JSON.stringify(key)} is not JSON: ${what} at ${path || '(root)'}`);
  }
}

/** A key a read, delete or scan names that no store can hold (the server refuses it the same way). */
export class InvalidKeyError extends Error {
  readonly kind = 'InvalidKey';
  override readonly name = 'InvalidKeyError';
  constructor(
    readonly key: string,
    what: string,
  ) {
    super(`${what} ${JSON.stringify(key)} is not well-formed Unicode (it has a lone surrogate)`);
  }
}

export class IndexKeyNullByteError extends Error {
  readonly kind = 'IndexKeyNullByte';
  override readonly name = 'IndexKeyNullByteError';
  constructor(
    readonly indexName: string,
    readonly primaryKey: string,
  ) {
    super('Secondary index keys cannot contain a null byte');
  }
}

export class UnknownIndexError extends Error {
  readonly kind = 'UnknownIndex';
  override readonly name = 'UnknownIndexError';
  constructor(readonly indexName: string) {
    super(`Unknown index name: ${indexName}`);
  }
}

export class UnknownMutatorError extends Error {
  readonly kind = 'UnknownMutator';
  override readonly name = 'UnknownMutatorError';
  constructor(readonly mutatorName: string) {
    super(`Unknown mutator: ${mutatorName}`);
  }
}

export class StoreClosedError extends Error {
  readonly kind = 'StoreClosed';
  override readonly name = 'StoreClosedError';
  constructor() {
    super('Store is closed');
  }
}

/** A replayed mutation would leave a gap in its client's ids. */
export class MutationIDGapError extends Error {
  readonly kind = 'MutationIDGap';
  override readonly name = 'MutationIDGapError';
  constructor(
    readonly clientID: string,
    readonly expected: number,
    readonly received: number,
  ) {
    super(`Mutation ${received} of client ${clientID} cannot be replayed: the next id is ${expected}`);
  }
}
