import type { ValidationError } from './generated/validators';

/**
 * Words a validator error from its keyword and params. The generated validators
 * carry no message strings (codegen emits them with ajv's `messages: false` to
 * keep the client bundle small); the wording here is that of ajv's own messages,
 * so errors read the same as before, e.g. "must have required property 'cookie'".
 * It words the keywords the generated validators report (a test fails when a
 * schema brings another); any other gets ajv's fallback wording.
 */
export function validationMessage(error: ValidationError): string {
  const params = error.params;
  switch (error.keyword) {
    case 'type':
      return `must be ${Array.isArray(params.type) ? params.type.join(',') : String(params.type)}`;
    case 'required':
      return `must have required property '${String(params.missingProperty)}'`;
    case 'additionalProperties':
      return 'must NOT have additional properties';
    case 'const':
      return 'must be equal to constant';
    case 'enum':
      return 'must be equal to one of the allowed values';
    case 'minimum':
    case 'maximum':
      return `must be ${String(params.comparison)} ${String(params.limit)}`;
    case 'minLength':
      return `must NOT have fewer than ${String(params.limit)} characters`;
    case 'minItems':
      return `must NOT have fewer than ${String(params.limit)} items`;
    case 'maxItems':
    case 'additionalItems':
      return `must NOT have more than ${String(params.limit)} items`;
    case 'pattern':
      return `must match pattern "${String(params.pattern)}"`;
    case 'anyOf':
      return 'must match a schema in anyOf';
    case 'discriminator':
      return params.error === 'tag'
        ? `tag "${String(params.tag)}" must be string`
        : `value of tag "${String(params.tag)}" must be in oneOf`;
    default:
      return `must pass "${error.keyword}" keyword validation`;
  }
}
