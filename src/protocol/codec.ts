import { FRAME_ENVELOPE_DEPTH, MAX_JSON_VALUE_DEPTH } from '../../protocol/constants';
import { findJSONLimitViolation } from './json-limits';
import type { Downstream, Upstream } from './messages';
import { InvalidMessageError } from './protocol-error';
import type { ValidationError, Validator } from './generated/validators';
import {
  validateConnectedMessage,
  validateErrorMessage,
  validatePingMessage,
  validatePokeMessage,
  validatePongMessage,
  validatePullRequestMessage,
  validatePullResponseMessage,
  validatePushMessage,
} from './generated/validators';

type ValidatorTable<M> = Readonly<Record<string, Validator<M>>>;

const DOWNSTREAM: ValidatorTable<Downstream> = {
  connected: validateConnectedMessage,
  error: validateErrorMessage,
  pong: validatePongMessage,
  poke: validatePokeMessage,
  pull: validatePullResponseMessage,
};

const UPSTREAM: ValidatorTable<Upstream> = {
  ping: validatePingMessage,
  push: validatePushMessage,
  pull: validatePullRequestMessage,
};

/** Parses and validates a server → client frame. Throws InvalidMessageError, never anything else. */
export function decodeDownstream(text: string): Downstream {
  return decode(text, DOWNSTREAM, 'downstream');
}

/** Parses and validates a client → server frame (strict: no unknown fields). Throws InvalidMessageError only. */
export function decodeUpstream(text: string): Upstream {
  return decode(text, UPSTREAM, 'upstream');
}

export function encodeUpstream(message: Upstream): string {
  return JSON.stringify(message);
}

export function encodeDownstream(message: Downstream): string {
  return JSON.stringify(message);
}

function decode<M>(text: string, table: ValidatorTable<M>, direction: string): M {
  if (typeof text !== 'string') {
    throw new InvalidMessageError(`Invalid ${direction} message: expected a text frame, got ${typeof text}`, '');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidMessageError(
      `Invalid ${direction} message: not JSON (${(error as Error).message}): ${excerpt(text)}`,
      '',
      { cause: error },
    );
  }
  const violation = findJSONLimitViolation(value, MAX_JSON_VALUE_DEPTH, FRAME_ENVELOPE_DEPTH);
  if (violation !== undefined) {
    throw new InvalidMessageError(`Invalid ${direction} message: ${violation.problem} at ${violation.path}`, violation.path);
  }
  if (!Array.isArray(value) || value.length === 0) {
    throw new InvalidMessageError(
      `Invalid ${direction} message: expected a JSON array [name, body], got ${excerpt(text)}`,
      '',
    );
  }
  const name: unknown = value[0];
  const validate = typeof name === 'string' && Object.hasOwn(table, name) ? table[name] : undefined;
  if (validate === undefined) {
    throw new InvalidMessageError(
      `Invalid ${direction} message: unknown message name ${JSON.stringify(name)} (expected one of ${Object.keys(table).join(', ')})`,
      '/0',
    );
  }
  if (!validate(value)) {
    const error = validate.errors?.[0];
    const path = error?.instancePath ?? '';
    throw new InvalidMessageError(`Invalid ${direction} ${name} message: ${describeError(error)}`, path);
  }
  return value;
}

function describeError(error: ValidationError | undefined): string {
  if (error === undefined) return 'does not match its schema';
  const where = error.instancePath === '' ? 'the frame' : error.instancePath;
  const params = error.params;
  let detail = '';
  if (error.keyword === 'additionalProperties') detail = ` (unexpected property ${JSON.stringify(params.additionalProperty)})`;
  else if (error.keyword === 'enum') detail = ` (${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')})`;
  else if (error.keyword === 'discriminator' && params.tagValue !== undefined) detail = ` (got ${JSON.stringify(params.tagValue)})`;
  else if (error.keyword === 'const') detail = ` (${JSON.stringify(params.allowedValue)})`;
  return `${where} ${error.message ?? 'is invalid'}${detail}`;
}

const EXCERPT_CHARS = 80;

function excerpt(text: string): string {
  return text.length <= EXCERPT_CHARS ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, EXCERPT_CHARS))}…`;
}
