import { RESERVED_KEY_PREFIX } from '../../protocol/presence';

/** A mutator wrote (or deleted) a key under the reserved prefix, which only the server maintains. */
export class ReservedKeyError extends Error {
  readonly kind = 'ReservedKey';
  override readonly name = 'ReservedKeyError';
  constructor(readonly key: string) {
    super(`Key ${JSON.stringify(key)} is reserved: keys starting with ${JSON.stringify(RESERVED_KEY_PREFIX)} are maintained by the server; mutators may read them, not write them`);
  }
}

/** Throws ReservedKeyError for a key a mutator may not write. */
export function checkWritableKey(key: string): void {
  if (key.startsWith(RESERVED_KEY_PREFIX)) throw new ReservedKeyError(key);
}
