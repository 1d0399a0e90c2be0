import Ajv from 'ajv';
import standaloneCode from 'ajv/dist/standalone';
import { GENERATED_NOTICE, type JsonSchema } from './json-schema';

export interface NamedJsonSchema {
  readonly name: string;
  readonly jsonSchema: JsonSchema;
}

/** Options shared by the generator and by tests that compile the same schemas. */
export const AJV_OPTIONS = {
  allErrors: false,
  allowUnionTypes: true,
  discriminator: true,
  strict: true,
} as const;

/**
 * What the generated code leaves out, to keep the client bundle small: message
 * strings (src/protocol/validation-message.ts words them from keyword and
 * params), schema paths (errors say where by instancePath), and the descriptive
 * keywords of the schema objects ajv embeds (the JSON Schema files keep them).
 */
const EMIT_OPTIONS = { messages: false } as const;
const DESCRIPTIVE_KEYWORDS = new Set(['title', 'description', '$comment']);
/** Keywords whose value maps names to schemas (not schema keywords themselves). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies']);
/** Keywords whose value is data, not a schema. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'required']);

/** A copy of a schema without title, description and $comment at any schema position. */
export function withoutDescriptiveKeywords(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDescriptiveKeywords);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DESCRIPTIVE_KEYWORDS.has(key)) continue;
    if (DATA_KEYWORDS.has(key)) out[key] = value;
    else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withoutDescriptiveKeywords(sub)]));
    } else out[key] = withoutDescriptiveKeywords(value);
  }
  return out;
}

export function validatorName(name: string): string {
  return `validate${name}`;
}

/**
 * The schemas ajv compiles: what the server validates on its hot path (the
 * client → server messages and the connect query), and any schema with a
 * keyword src/protocol/schema-check.ts does not read. Every other validator
 * (the server → client messages and the records the client checks) is that
 * interpreter over the schema as data: about a sixth of ajv's code in the
 * client's bundle.
 */
export function compiledByAjv(name: string, role: string, jsonSchema: JsonSchema): boolean {
  return role === 'upstream' || name === 'ConnectQuery' || !isCompact(jsonSchema);
}

/** The keywords schema-check.ts reads (besides the descriptive ones, left out). */
const COMPACT_KEYWORDS = new Set([
  'type',
  'const',
  'enum',
  'anyOf',
  'oneOf',
  'discriminator',
  'minimum',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'items',
  'additionalItems',
  'required',
  'properties',
  'additionalProperties',
]);
const IGNORED_KEYWORDS = new Set(['$schema', '$id', ...DESCRIPTIVE_KEYWORDS]);

/** Whether schema-check.ts reads every keyword of the schema, at every depth, as ajv does. */
export function isCompact(schema: unknown): boolean {
  if (schema === true || (typeof schema === 'object' && schema !== null && Object.keys(schema).length === 0)) return true;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return false;
  const s = schema as JsonSchema;
  for (const [key, value] of Object.entries(s)) {
    if (IGNORED_KEYWORDS.has(key)) continue;
    if (!COMPACT_KEYWORDS.has(key)) return false;
    if (key === 'additionalItems' && value !== false) return false;
    if (key === 'additionalProperties' && value !== false && !isCompact(value)) return false;
    if (key === 'properties' && !Object.values(value as object).every(isCompact)) return false;
    if ((key === 'anyOf' || key === 'oneOf') && !(value as unknown[]).every(isCompact)) return false;
    if (key === 'items' && !(Array.isArray(value) ? value.every(isCompact) : isCompact(value))) return false;
  }
  // oneOf only under a discriminator whose branches each name their tag with const (ajv's mapping).
  if (s.oneOf !== undefined) {
    const tag = (s.discriminator as { propertyName?: unknown } | undefined)?.propertyName;
    if (typeof tag !== 'string') return false;
    if (!(s.oneOf as JsonSchema[]).every((branch) => typeof (branch.properties as Record<string, JsonSchema> | undefined)?.[tag]?.const === 'string')) return false;
  }
  if (s.discriminator !== undefined && s.oneOf === undefined) return false;
  return true;
}

/** The schema as schema-check.ts reads it: its keywords only. */
function compactSchema(schema: JsonSchema): unknown {
  const out = withoutDescriptiveKeywords(schema) as JsonSchema;
  delete out.$schema;
  delete out.$id;
  return out;
}

/**
 * The validators as one ES module: ajv's precompiled standalone code for the
 * schemas compiledByAjv picks (no schema compilation and no `new Function` at
 * run time), and schema-check.ts's compactValidator over the others.
 */
export function emitValidatorModule(schemas: readonly (NamedJsonSchema & { readonly role: string })[]): string {
  const ajv = new Ajv({ ...AJV_OPTIONS, ...EMIT_OPTIONS, code: { source: true, esm: true, lines: true } });
  const exportsMap: Record<string, string> = {};
  const compact: string[] = [];
  for (const { name, role, jsonSchema } of schemas) {
    ajv.addSchema(withoutDescriptiveKeywords(jsonSchema) as JsonSchema);
    if (compiledByAjv(name, role, jsonSchema)) exportsMap[validatorName(name)] = jsonSchema.$id as string;
    // Pure: a bundle drops the validators it does not use.
    else compact.push(`export const ${validatorName(name)} = /* @__PURE__ */ compactValidator(${JSON.stringify(compactSchema(jsonSchema))});`);
  }
  const code = withoutSchemaPaths(inlineRuntime(standaloneCode(ajv, exportsMap)));
  if (/\brequire\(/.test(code)) {
    throw new Error('Generated validators need a runtime require() that codegen cannot inline; adjust the schema.');
  }
  return `// ${GENERATED_NOTICE}\n/* eslint-disable */\nimport { compactValidator } from '../schema-check';\n${code.trim()}\n\n${compact.join('\n')}\n`;
}

/** ajv's string length in code points, written inline so the module has no imports. */
const UCS2_LENGTH_SOURCE = `function (str) {
  let length = str.length;
  for (let i = 0; i < str.length; i++) {
    const code = str.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < str.length) {
      const next = str.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}`;

/** ajv writes each error's schemaPath as a string literal; nothing reads it, so it is left out. */
function withoutSchemaPaths(code: string): string {
  const stripped = code.replace(/schemaPath:"(?:[^"\\]|\\.)*",/g, '');
  if (stripped.includes('schemaPath')) throw new Error('Generated validators write a schemaPath codegen cannot leave out.');
  return stripped;
}

function inlineRuntime(code: string): string {
  return code.replace(/require\("ajv\/dist\/runtime\/ucs2length"\)\.default/g, UCS2_LENGTH_SOURCE);
}

export function emitValidatorDeclarations(schemas: readonly NamedJsonSchema[]): string {
  const lines = [
    `// ${GENERATED_NOTICE}`,
    `import type * as T from './types';`,
    '',
    '/** An ajv error without message or schemaPath (see src/protocol/validation-message.ts). */',
    'export interface ValidationError {',
    '  readonly instancePath: string;',
    '  readonly keyword: string;',
    '  readonly params: Record<string, unknown>;',
    '}',
    '',
    'export interface Validator<T> {',
    '  (data: unknown): data is T;',
    '  errors?: ValidationError[] | null;',
    '}',
    '',
  ];
  for (const { name } of schemas) {
    lines.push(`export declare const ${validatorName(name)}: Validator<T.${name}>;`);
  }
  return lines.join('\n') + '\n';
}
