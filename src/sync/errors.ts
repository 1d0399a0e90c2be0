import type { ReadonlyJSONValue } from '../../protocol/json';

/** The update's base cookie is not the local cookie: the connection should reconnect. */
export class UnexpectedBaseCookieError extends Error {
  readonly kind = 'UnexpectedBaseCookie';
  override readonly name = 'UnexpectedBaseCookieError';
  constructor(
    readonly expected: ReadonlyJSONValue,
    readonly received: ReadonlyJSONValue,
  ) {
    super(`Unexpected base cookie: expected ${JSON.stringify(expected)}, received ${JSON.stringify(received)}`);
  }
}

export class OverlappingSyncError extends Error {
  readonly kind = 'OverlappingSync';
  override readonly name = 'OverlappingSyncError';
  constructor() {
    super('Overlapping sync');
  }
}

export class WrongSyncHeadError extends Error {
  readonly kind = 'WrongSyncHead';
  override readonly name = 'WrongSyncHeadError';
  constructor() {
    super('Wrong sync head');
  }
}
