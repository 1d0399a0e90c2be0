import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AJV_OPTIONS } from '../../codegen/validators';
import { validationMessage } from './validation-message';

/** For each keyword: a schema and an instance that fails it first. */
const CASES: Record<string, { schema: object; invalid: unknown[] }> = {
  type: { schema: { type: 'string' }, invalid: [1] },
  typeUnion: { schema: { type: ['integer', 'null'] }, invalid: ['x'] },
  required: { schema: { type: 'object', properties: { cookie: {} }, required: ['cookie'] }, invalid: [{}] },
  additionalProperties: { schema: { type: 'object', properties: {}, additionalProperties: false }, invalid: [{ x: 1 }] },
  const: { schema: { const: 'ping' }, invalid: ['pong'] },
  enum: { schema: { enum: ['a', 'b'] }, invalid: ['c'] },
  minimum: { schema: { type: 'number', minimum: 1 }, invalid: [0] },
  maximum: { schema: { type: 'number', maximum: 65535 }, invalid: [65536] },
  minLength: { schema: { type: 'string', minLength: 1 }, invalid: [''] },
  minItems: { schema: { type: 'array', minItems: 2 }, invalid: [[1]] },
  maxItems: { schema: { type: 'array', maxItems: 1 }, invalid: [[1, 2]] },
  additionalItems: { schema: { type: 'array', items: [{}], minItems: 1, additionalItems: false }, invalid: [[1, 2]] },
  pattern: { schema: { type: 'string', pattern: '^[0-9]+$' }, invalid: ['x'] },
  anyOf: { schema: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, invalid: [true] },
  discriminator: {
    schema: {
      type: 'object',
      discriminator: { propertyName: 'op' },
      properties: { op: {} },
      required: ['op'],
      oneOf: [
        { type: 'object', properties: { op: { const: 'put' } } },
        { type: 'object', properties: { op: { const: 'del' } } },
      ],
    },
    invalid: [{ op: 1 }, { op: 'clear' }],
  },
};

describe('validationMessage', () => {
  const ajv = new Ajv(AJV_OPTIONS);
  for (const [name, { schema, invalid }] of Object.entries(CASES)) {
    it(`words ${name} errors as ajv does`, () => {
      const validate = ajv.compile(schema);
      for (const instance of invalid) {
        expect(validate(instance)).toBe(false);
        const keyword = name === 'typeUnion' ? 'type' : name;
        // anyOf reports its branches' errors first, then its own.
        const error = validate.errors!.find((e) => e.keyword === keyword);
        expect(error, JSON.stringify(validate.errors)).toBeDefined();
        expect(error!.message).toBeTruthy();
        expect(validationMessage({ instancePath: error!.instancePath, keyword: error!.keyword, params: error!.params })).toBe(
          error!.message,
        );
      }
    });
  }

  it('has a wording for every keyword the generated validators report, and they carry no messages', () => {
    const code = readFileSync(resolve(import.meta.dirname, 'generated/validators.js'), 'utf8');
    // An error is built by the shared fail(validateN, instancePath, "keyword", {params}) or, inside anyOf, as {instancePath,keyword:"…",params}.
    const keywords = new Set([...code.matchAll(/keyword:"([A-Za-z$]+)"|, "([A-Za-z$]+)", \{/g)].map((match) => (match[1] ?? match[2])!));
    expect(keywords.size).toBeGreaterThan(5);
    for (const keyword of keywords) expect(Object.keys(CASES), keyword).toContain(keyword);
    expect(code).not.toMatch(/message:|schemaPath/);
  });

  it('names an unknown keyword', () => {
    expect(validationMessage({ instancePath: '/x', keyword: 'uniqueItems', params: {} })).toBe('must pass "uniqueItems" keyword validation');
  });
});
