import { FRAME_ENVELOPE_DEPTH, MAX_JSON_VALUE_DEPTH } from '../../protocol/constants';
import { findJSONLimitViolation } from './json-limits';
import { InvalidMessageError } from './protocol-error';
import type { ValidationError, Validator } from './generated/validators';
import { validationMessage } from './validation-message';

/** Message name → the validator of the whole frame `[name, body, …]`. */
export type ValidatorTable<M> = Readonly<Record<string, Validator<M>>>;

/**
 * Parses a text frame and validates it with the validator its name selects.
 * Throws InvalidMessageError (with the JSON pointer of what was wrong), never anything else.
 * Shared by codec.ts (client side) and server-codec.ts (server side).
 */
export function decodeFrame<M>(text: string, table: ValidatorTable<M>, direction: string): M {
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
  return `${where} ${validationMessage(error)}${detail}`;
}

const EXCERPT_CHARS = 80;

function excerpt(text: string): string {
  return text.length <= EXCERPT_CHARS ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, EXCERPT_CHARS))}…`;
}
