import { GENERATED_NOTICE, type JsonSchema } from './json-schema';
import type { NamedJsonSchema } from './validators';

const PRELUDE = `export type ReadonlyJSONValue =
  | null
  | string
  | boolean
  | number
  | readonly ReadonlyJSONValue[]
  | { readonly [key: string]: ReadonlyJSONValue };
`;

/** TypeScript declarations for the generated JSON schemas (readonly: decoded data is not to be mutated). */
export function emitTypes(schemas: readonly NamedJsonSchema[]): string {
  const out = [`// ${GENERATED_NOTICE}`, '', PRELUDE];
  const named = new Set(schemas.map((entry) => entry.name));
  for (const { name, jsonSchema } of schemas) {
    const doc = typeof jsonSchema.description === 'string' ? `/** ${jsonSchema.description} */\n` : '';
    const context: Context = { selfName: name, named };
    out.push(`${doc}export type ${name} = ${typeOf(jsonSchema, context, '', true)};\n`);
  }
  return out.join('\n');
}

interface Context {
  readonly selfName: string;
  /** Top-level schema names: a nested schema with such a title is written as a reference. */
  readonly named: ReadonlySet<string>;
}

function typeOf(schema: JsonSchema, context: Context, indent: string, isRoot = false): string {
  if (schema.$ref === '#') return context.selfName;
  if (!isRoot && typeof schema.title === 'string' && context.named.has(schema.title)) return schema.title;
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  const variants = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (variants) return variants.map((variant) => typeOf(variant, context, indent)).join(' | ');
  const type = schema.type;
  if (Array.isArray(type)) {
    return type.map((single) => typeOf({ ...schema, type: single }, context, indent, isRoot)).join(' | ');
  }
  switch (type) {
    case 'null':
      return 'null';
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'integer':
    case 'number':
      return 'number';
    case 'array':
      return arrayType(schema, context, indent);
    case 'object':
      return objectType(schema, context, indent);
    case undefined:
      return 'ReadonlyJSONValue';
    default:
      throw new Error(`codegen: unsupported schema type ${JSON.stringify(type)} in ${context.selfName}`);
  }
}

function arrayType(schema: JsonSchema, context: Context, indent: string): string {
  const items = schema.items;
  if (Array.isArray(items)) {
    return `readonly [${items.map((item) => typeOf(item as JsonSchema, context, indent)).join(', ')}]`;
  }
  const element = items === undefined ? 'ReadonlyJSONValue' : typeOf(items as JsonSchema, context, indent);
  return /[ |]/.test(element) ? `readonly (${element})[]` : `readonly ${element}[]`;
}

function objectType(schema: JsonSchema, context: Context, indent: string): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const inner = indent + '  ';
  const lines: string[] = [];
  for (const [key, propertySchema] of Object.entries(properties)) {
    const optional = required.has(key) ? '' : '?';
    const doc = typeof propertySchema.description === 'string' ? `${inner}/** ${propertySchema.description} */\n` : '';
    lines.push(`${doc}${inner}readonly ${propertyKey(key)}${optional}: ${typeOf(propertySchema, context, inner)};`);
  }
  const additional = schema.additionalProperties;
  if (typeof additional === 'object' && additional !== null) {
    lines.push(`${inner}readonly [key: string]: ${typeOf(additional as JsonSchema, context, inner)};`);
  }
  if (lines.length === 0) return additional === false ? 'Record<string, never>' : '{}';
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function propertyKey(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key);
}
