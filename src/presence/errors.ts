/** Why a presence state was refused. */
export type PresenceStateProblem = 'NotJSON' | 'TooLarge';

/** A presence state that is not JSON, or too large to send (PRESENCE_STATE_MAX_BYTES). Nothing was sent or stored. */
export class PresenceStateError extends Error {
  readonly kind = 'PresenceState';
  override readonly name = 'PresenceStateError';
  constructor(
    readonly problem: PresenceStateProblem,
    message: string,
  ) {
    super(message);
  }
}

/** The app's mutators use a name under the reserved prefix, which belongs to the built-in ones. */
export class ReservedMutatorNameError extends Error {
  readonly kind = 'ReservedMutatorName';
  override readonly name = 'ReservedMutatorNameError';
  constructor(readonly mutatorName: string) {
    super(`Mutator name ${JSON.stringify(mutatorName)} is reserved: names starting with "_roomsync/" belong to roomsync's built-in mutators`);
  }
}
