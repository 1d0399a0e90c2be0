import type { ReadonlyJSONValue } from '../../protocol/json';
import { PRESENCE_STATE_MAX_BYTES } from '../../protocol/presence';
import { utf8ByteLength } from '../connection/utf8-length';
import { InvalidJSONValueError } from '../db/errors';
import { cloneFrozenJSON } from '../db/json-value';
import { PresenceStateError } from './errors';

/** A presence state checked for sending: a frozen copy, and its JSON text. */
export interface CheckedPresenceState {
  readonly value: ReadonlyJSONValue;
  readonly json: string;
}

/** Copies `state` if it is JSON of at most PRESENCE_STATE_MAX_BYTES; throws PresenceStateError otherwise. */
export function checkPresenceState(state: unknown): CheckedPresenceState {
  let value: ReadonlyJSONValue;
  try {
    value = cloneFrozenJSON('presence state', state);
  } catch (error) {
    if (!(error instanceof InvalidJSONValueError)) throw error;
    throw new PresenceStateError('NotJSON', `A presence state must be JSON: ${error.message}`);
  }
  const json = JSON.stringify(value);
  const bytes = utf8ByteLength(json);
  if (bytes > PRESENCE_STATE_MAX_BYTES) {
    throw new PresenceStateError('TooLarge', `A presence state is at most ${PRESENCE_STATE_MAX_BYTES} bytes of JSON; this one has ${bytes}`);
  }
  return { value, json };
}

/** The state carried by the built-in mutation's args `{state}`; throws PresenceStateError when they are not that. */
export function presenceStateOfArgs(args: unknown): CheckedPresenceState {
  if (typeof args !== 'object' || args === null || Array.isArray(args) || !Object.hasOwn(args, 'state')) {
    throw new PresenceStateError('NotJSON', 'The presence mutation needs args {state}');
  }
  return checkPresenceState((args as { state: unknown }).state);
}
