import type { ErrorKind } from '../src/protocol';

/** A failure answered to the client as `["error", kind, message]` (then, usually, a close). */
export class ClientError extends Error {
  override readonly name = 'ClientError';
  constructor(
    readonly kind: ErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** Using a transaction after its mutation ended. */
export class TransactionClosedError extends Error {
  readonly kind = 'TransactionClosed';
  override readonly name = 'TransactionClosedError';
  constructor() {
    super('Transaction is closed');
  }
}

/** The server keeps no secondary indexes: `scan({indexName})` is refused. */
export class IndexScanNotSupportedError extends Error {
  readonly kind = 'IndexScanNotSupported';
  override readonly name = 'IndexScanNotSupportedError';
  constructor(readonly indexName: string) {
    super(`scan with indexName ${JSON.stringify(indexName)} is not supported on the server; scan the primary keys instead`);
  }
}

/** A mutator tried to store something that is not JSON. */
export class NotJSONError extends Error {
  readonly kind = 'NotJSON';
  override readonly name = 'NotJSONError';
  constructor(
    readonly key: string,
    readonly path: string,
    what: string,
  ) {
    super(`Value for key ${JSON.stringify(key)} is not JSON: ${what} at ${path || '(root)'}`);
  }
}

/** A push named a mutator the server does not know. */
export class UnknownMutatorError extends Error {
  readonly kind = 'UnknownMutator';
  override readonly name = 'UnknownMutatorError';
  constructor(readonly mutatorName: string) {
    super(`Unknown mutator: ${mutatorName}`);
  }
}

/** The storage failed; the room stops serving rather than diverge from what is durable. */
export class StorageError extends Error {
  readonly kind = 'Storage';
  override readonly name = 'StorageError';
}

/** What a mutation fails with when the thread or process it ran in had to be stopped for it (it ran past the mutator timeout). */
export class StoppedMutatorError extends Error {
  override readonly name = 'MutatorTimeoutError';
  constructor(mutatorName: string) {
    super(`Mutator ${mutatorName} was stopped: it ran past the mutator timeout`);
  }
}

/** A mutator did not settle in time; it is skipped like one that threw. */
export class MutatorTimeoutError extends Error {
  readonly kind = 'MutatorTimeout';
  override readonly name = 'MutatorTimeoutError';
  constructor(
    readonly mutatorName: string,
    readonly timeoutMs: number,
  ) {
    super(`Mutator ${mutatorName} did not settle within ${timeoutMs} ms`);
  }
}

/**
 * A key no storage could keep exactly: not well-formed Unicode (a store would
 * mangle it; two such keys could collapse into one), with U+0000, or too long.
 */
export class InvalidKeyError extends Error {
  readonly kind = 'InvalidKey';
  override readonly name = 'InvalidKeyError';
  constructor(what: string, key: string, problem = 'it is not well-formed Unicode (it has a lone surrogate)') {
    const shown = key.length > 100 ? `${JSON.stringify(key.slice(0, 100))}…` : JSON.stringify(key);
    super(`The ${what} ${shown} is refused, never stored mangled: ${problem}`);
  }
}

/** A mutation would take its room over the size limit: it is skipped. */
export class RoomSizeLimitError extends Error {
  readonly kind = 'RoomSizeLimit';
  override readonly name = 'RoomSizeLimitError';
  constructor(
    readonly roomID: string,
    readonly bytes: number,
    readonly limitBytes: number,
  ) {
    super(`Room ${roomID} would hold ${bytes} bytes, over its limit of ${limitBytes}; the mutation is skipped`);
  }
}
