/**
 * The client's validators: the JSON Schemas the client checks (the server → client messages and the records of the local store),
 * written by codegen into generated/validators.js as data. ajv's generated
 * code for the same schemas is six times larger minified; the server keeps
 * it for the client → server messages, where it is faster.
 *
 * It covers the keywords of those schemas (codegen refuses a schema with any
 * other) and reports what ajv's code (draft-07, allErrors off) reports, in the
 * same order: the first error of the first failing keyword, with ajv's
 * keyword, params and instancePath, and for anyOf every branch's error before
 * its own. Keywords are checked in ajv's order: type; const, enum, anyOf;
 * minimum; minLength, pattern; maxItems, minItems, additionalItems, items;
 * required, additionalProperties, properties, discriminator. A schema is
 * compiled to closures at its validator's first call.
 * codegen/validators.test.ts holds it to ajv's errors on generated frames.
 */
import type { ValidationError, Validator } from './generated/validators';

/** The keywords of a schema the interpreter reads (codegen's COMPACT_KEYWORDS). */
export interface CompactSchema {
  readonly type?: string | readonly string[];
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly CompactSchema[];
  readonly oneOf?: readonly CompactSchema[];
  readonly discriminator?: { readonly propertyName: string };
  readonly minimum?: number;
  readonly minLength?: number;
  readonly pattern?: string;
  readonly maxItems?: number;
  readonly minItems?: number;
  readonly items?: CompactSchema | readonly CompactSchema[];
  readonly additionalItems?: false;
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, CompactSchema>>;
  readonly additionalProperties?: false | CompactSchema;
}

type Errors = ValidationError[];

/**
 * Where the data being checked is: the keys and indexes from the root, pushed
 * and popped as the check descends. The JSON pointer is written only for an
 * error (a valid frame, the common case, builds none).
 */
type Path = (string | number)[];

const error = (path: Path, keyword: string, params: Record<string, unknown>): Errors => [
  { instancePath: path.map((key) => `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`).join(''), keyword, params },
];

const isObject = (data: unknown): data is Record<string, unknown> => typeof data === 'object' && data !== null && !Array.isArray(data);

function hasType(type: string, data: unknown): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(data);
    case 'number':
      return Number.isFinite(data);
    case 'null':
      return data === null;
    case 'object':
      return isObject(data);
    case 'array':
      return Array.isArray(data);
    default:
      return typeof data === type;
  }
}

/** ajv's equality for const and enum: deep, over JSON. */
function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && equal((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** A string's length in code points (JSON Schema's length, as ajv counts it). */
function codePoints(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

/** A compiled check: the errors of `data` (at `path`), or undefined when it is valid. */
type Check = (data: unknown, path: Path) => Errors | undefined;

const pass: Check = () => undefined;

/** Checks `data` (at `key` under `path`) with `check`. */
function at(check: Check, data: unknown, path: Path, key: string | number): Errors | undefined {
  path.push(key);
  const errors = check(data, path);
  path.pop();
  return errors;
}

/**
 * The schema as closures, compiled once: a poke checks thousands of patch
 * operations against the same few schemas, and a closure per keyword is far
 * faster than reading the schema object again for each.
 */
function compile(s: CompactSchema): Check {
  const checks: Check[] = [];
  const add = (check: Check) => checks.push(check);
  const { type } = s;
  if (type !== undefined) {
    const wrong = (path: Path) => error(path, 'type', { type });
    if (typeof type === 'string') add((data, path) => (hasType(type, data) ? undefined : wrong(path)));
    else add((data, path) => (type.some((t) => hasType(t, data)) ? undefined : wrong(path)));
  }
  if (s.const !== undefined) {
    const allowedValue = s.const;
    add((data, path) => (equal(data, allowedValue) ? undefined : error(path, 'const', { allowedValue })));
  }
  if (s.enum !== undefined) {
    const allowedValues = s.enum;
    add((data, path) => (allowedValues.some((value) => equal(data, value)) ? undefined : error(path, 'enum', { allowedValues })));
  }
  if (s.anyOf !== undefined) {
    const branches = s.anyOf.map(compile);
    // Every branch's errors, then anyOf's own; none once a branch passes.
    add((data, path) => {
      const all: Errors = [];
      for (const branch of branches) {
        const errors = branch(data, path);
        if (errors === undefined) return undefined;
        all.push(...errors);
      }
      return [...all, ...error(path, 'anyOf', {})];
    });
  }
  const { minimum, minLength, pattern, maxItems, minItems } = s;
  if (minimum !== undefined) add((data, path) => (typeof data === 'number' && !(data >= minimum) ? error(path, 'minimum', { comparison: '>=', limit: minimum }) : undefined));
  if (minLength !== undefined) add((data, path) => (typeof data === 'string' && codePoints(data) < minLength ? error(path, 'minLength', { limit: minLength }) : undefined));
  if (pattern !== undefined) {
    const regExp = new RegExp(pattern, 'u');
    add((data, path) => (typeof data === 'string' && !regExp.test(data) ? error(path, 'pattern', { pattern }) : undefined));
  }
  if (maxItems !== undefined) add((data, path) => (Array.isArray(data) && data.length > maxItems ? error(path, 'maxItems', { limit: maxItems }) : undefined));
  if (minItems !== undefined) add((data, path) => (Array.isArray(data) && data.length < minItems ? error(path, 'minItems', { limit: minItems }) : undefined));
  const { items } = s;
  if (Array.isArray(items)) {
    const tuple = (items as readonly CompactSchema[]).map(compile);
    const limit = tuple.length;
    if (s.additionalItems === false) add((data, path) => (Array.isArray(data) && data.length > limit ? error(path, 'additionalItems', { limit }) : undefined));
    add((data, path) => {
      if (!Array.isArray(data)) return undefined;
      for (let i = 0; i < Math.min(data.length, limit); i++) {
        const errors = at(tuple[i]!, data[i], path, i);
        if (errors !== undefined) return errors;
      }
      return undefined;
    });
  } else if (items !== undefined) {
    const item = compile(items as CompactSchema);
    add((data, path) => {
      if (!Array.isArray(data)) return undefined;
      for (let i = 0; i < data.length; i++) {
        const errors = at(item, data[i], path, i);
        if (errors !== undefined) return errors;
      }
      return undefined;
    });
  }
  const { required, additionalProperties } = s;
  // One closure per property name: each reads its own property, which the engine then reads as fast as ajv's `data.name`.
  if (required !== undefined) {
    for (const missingProperty of required) add((data, path) => (isObject(data) && data[missingProperty] === undefined ? error(path, 'required', { missingProperty }) : undefined));
  }
  const properties = Object.entries(s.properties ?? {});
  if (additionalProperties !== undefined) {
    const known = new Set(properties.map(([name]) => name));
    const additional = additionalProperties === false ? undefined : compile(additionalProperties);
    add((data, path) => {
      if (!isObject(data)) return undefined;
      for (const key in data) {
        if (known.has(key)) continue;
        if (additional === undefined) return error(path, 'additionalProperties', { additionalProperty: key });
        const errors = at(additional, data[key], path, key);
        if (errors !== undefined) return errors;
      }
      return undefined;
    });
  }
  for (const [name, schema] of properties) {
    const check = compile(schema);
    if (check !== pass) add((data, path) => (isObject(data) && data[name] !== undefined ? at(check, data[name], path, name) : undefined));
  }
  const tag = s.discriminator?.propertyName;
  if (tag !== undefined) {
    // ajv's mapping: each oneOf branch names its tag value with const (codegen checks).
    const branches = new Map((s.oneOf ?? []).map((branch) => [branch.properties![tag]!.const, compile(branch)]));
    add((data, path) => {
      if (!isObject(data)) return undefined;
      const tagValue = data[tag];
      if (typeof tagValue !== 'string') return error(path, 'discriminator', { error: 'tag', tag, tagValue });
      const branch = branches.get(tagValue);
      return branch === undefined ? error(path, 'discriminator', { error: 'mapping', tag, tagValue }) : branch(data, path);
    });
  }
  if (checks.length === 0) return pass;
  if (checks.length === 1) return checks[0]!;
  return (data, path) => {
    for (const check of checks) {
      const errors = check(data, path);
      if (errors !== undefined) return errors;
    }
    return undefined;
  };
}

/** A validator of `schema` with ajv's interface: true or false, and the errors of the last failed call in `errors` (null after a pass). */
export function compactValidator<T>(schema: CompactSchema): Validator<T> {
  let check: Check | undefined;
  const validate = ((data: unknown) => {
    // Compiled at the first call: a module that imports validators it never calls pays nothing.
    check ??= compile(schema);
    validate.errors = check(data, []) ?? null;
    return validate.errors === null;
  }) as Validator<T>;
  return validate;
}
