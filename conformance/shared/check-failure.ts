/** A conformance check found the implementation misbehaving: what was expected and what came instead. */
export class CheckFailure extends Error {
  readonly kind = 'CheckFailure';
  override readonly name = 'CheckFailure';

  constructor(
    message: string,
    readonly expected?: string,
    readonly actual?: string,
  ) {
    super(message);
  }
}

/** A check could not run against this implementation (e.g. the config lacks what it needs). */
export class CheckSkipped extends Error {
  readonly kind = 'CheckSkipped';
  override readonly name = 'CheckSkipped';
}
