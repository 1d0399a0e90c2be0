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
 * Precompiled standalone validators as one ES module: no schema compilation
 * and no `new Function` at run time.
 */
export function emitValidatorModule(schemas: readonly NamedJsonSchema[]): string {
  const ajv = new Ajv({ ...AJV_OPTIONS, ...EMIT_OPTIONS, code: { source: true, esm: true, lines: true } });
  const exportsMap: Record<string, string> = {};
  for (const { name, jsonSchema } of schemas) {
    ajv.addSchema(withoutDescriptiveKeywords(jsonSchema) as JsonSchema);
    exportsMap[validatorName(name)] = jsonSchema.$id as string;
  }
  const code = withoutSchemaPaths(inlineRuntime(standaloneCode(ajv, exportsMap)));
  if (/\brequire\(/.test(code)) {
    throw new Error('Generated validators need a runtime require() that codegen cannot inline; adjust the schema.');
  }
  return `// ${GENERATED_NOTICE}\n/* eslint-disable */\n${code.trim()}\n`;
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
