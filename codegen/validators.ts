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

export function validatorName(name: string): string {
  return `validate${name}`;
}

/**
 * Precompiled standalone validators as one ES module: no schema compilation
 * and no `new Function` at run time.
 */
export function emitValidatorModule(schemas: readonly NamedJsonSchema[]): string {
  const ajv = new Ajv({ ...AJV_OPTIONS, code: { source: true, esm: true, lines: true } });
  const exportsMap: Record<string, string> = {};
  for (const { name, jsonSchema } of schemas) {
    ajv.addSchema(jsonSchema);
    exportsMap[validatorName(name)] = jsonSchema.$id as string;
  }
  const code = inlineRuntime(standaloneCode(ajv, exportsMap));
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

function inlineRuntime(code: string): string {
  return code.replace(/require\("ajv\/dist\/runtime\/ucs2length"\)\.default/g, UCS2_LENGTH_SOURCE);
}

export function emitValidatorDeclarations(schemas: readonly NamedJsonSchema[]): string {
  const lines = [
    `// ${GENERATED_NOTICE}`,
    `import type * as T from './types';`,
    '',
    'export interface ValidationError {',
    '  readonly instancePath: string;',
    '  readonly schemaPath: string;',
    '  readonly keyword: string;',
    '  readonly params: Record<string, unknown>;',
    '  readonly message?: string;',
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
