import { PROTOCOL_SCHEMAS } from '../protocol/index';
import { GENERATED_NOTICE, toJsonSchema } from './json-schema';
import { emitTypes } from './ts-types';
import { emitValidatorDeclarations, emitValidatorModule, type NamedJsonSchema } from './validators';

/** Output directories, relative to the repository root. */
export const JSON_SCHEMA_DIR = 'protocol/json-schema';
export const GENERATED_TS_DIR = 'src/protocol/generated';

/** Every generated file: path relative to the repository root → exact contents. */
export function generateAll(): Map<string, string> {
  const named: NamedJsonSchema[] = PROTOCOL_SCHEMAS.map((entry) => ({ name: entry.name, jsonSchema: toJsonSchema(entry) }));
  const files = new Map<string, string>();
  for (const { name, jsonSchema } of named) {
    files.set(`${JSON_SCHEMA_DIR}/${name}.json`, JSON.stringify(jsonSchema, null, 2) + '\n');
  }
  files.set(`${JSON_SCHEMA_DIR}/index.json`, JSON.stringify(schemaIndex(named), null, 2) + '\n');
  files.set(`${GENERATED_TS_DIR}/types.ts`, emitTypes(named));
  files.set(`${GENERATED_TS_DIR}/validators.js`, emitValidatorModule(named));
  files.set(`${GENERATED_TS_DIR}/validators.d.ts`, emitValidatorDeclarations(named));
  return files;
}

function schemaIndex(named: readonly NamedJsonSchema[]) {
  const roles = new Map(PROTOCOL_SCHEMAS.map((entry) => [entry.name, entry.role]));
  return {
    $comment: GENERATED_NOTICE,
    schemas: named.map(({ name, jsonSchema }) => ({ name, role: roles.get(name), $id: jsonSchema.$id, file: `${name}.json` })),
  };
}
