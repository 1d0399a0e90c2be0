import type { ErrorKind } from './generated/types';

/** A failure that carries a protocol error kind (SPEC.md §8), so callers switch on `kind`. */
export class ProtocolError extends Error {
  readonly kind: ErrorKind;

  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProtocolError';
    this.kind = kind;
  }
}

/** A frame that is not JSON, not a known message, or does not match its schema. */
export class InvalidMessageError extends ProtocolError {
  declare readonly kind: 'InvalidMessage';
  /** JSON pointer into the frame of the value that was wrong ('' for the whole frame). */
  readonly path: string;

  constructor(message: string, path: string, options?: { cause?: unknown }) {
    super('InvalidMessage', message, options);
    this.name = 'InvalidMessageError';
    this.path = path;
  }
}
