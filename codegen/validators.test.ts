/**
 * The client's validators (src/protocol/schema-check.ts over the schemas as
 * data) against ajv's over the same schemas: the same verdict and the same
 * errors (instancePath, keyword, params, in order) on valid values and on
 * values corrupted at every depth.
 */
import Ajv from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_SCHEMAS } from '../protocol/index';
import * as generated from '../src/protocol/generated/validators';
import type { ValidationError, Validator } from '../src/protocol/generated/validators';
import { DOWNSTREAM_ARBITRARIES, UPSTREAM_ARBITRARIES, lastMutationIDChanges, mutation, patchOperation } from '../src/protocol/testing/arbitraries';
import { toJsonSchema, type JsonSchema } from './json-schema';
import { AJV_OPTIONS, compiledByAjv, isCompact, validatorName, withoutDescriptiveKeywords } from './validators';

const RUNS = 400;

const ajv = new Ajv({ ...AJV_OPTIONS });
const entries = PROTOCOL_SCHEMAS.map((entry) => ({ ...entry, jsonSchema: toJsonSchema(entry) }));
for (const { jsonSchema } of entries) ajv.addSchema(withoutDescriptiveKeywords(jsonSchema) as JsonSchema);
const compact = entries.filter(({ name, role, jsonSchema }) => !compiledByAjv(name, role, jsonSchema));

const hash = fc.constantFrom('', 'h', 'abc', 'h😀');
const nat = fc.nat();
const ids = fc.dictionary(fc.string({ maxLength: 3 }), nat, { maxKeys: 3 });
const indexDefinition = fc.record({ prefix: fc.string(), jsonPointer: fc.constantFrom('', '/a', '/a/b', 'x', '/'), allowEmpty: fc.boolean() }, { requiredKeys: ['jsonPointer'] });
/** Mostly valid values of each compact schema (some are not: the comparison holds either way). */
const SAMPLES: Record<string, fc.Arbitrary<unknown>> = {
  ConnectedMessage: DOWNSTREAM_ARBITRARIES.connected,
  PongMessage: DOWNSTREAM_ARBITRARIES.pong,
  PokeMessage: DOWNSTREAM_ARBITRARIES.poke,
  PullResponseMessage: DOWNSTREAM_ARBITRARIES.pull,
  ErrorMessage: DOWNSTREAM_ARBITRARIES.error,
  PushBody: UPSTREAM_ARBITRARIES.push.map((m) => m[1]),
  PullRequestBody: UPSTREAM_ARBITRARIES.pull.map((m) => m[1]),
  ConnectedBody: DOWNSTREAM_ARBITRARIES.connected.map((m) => m[1]),
  PokeBody: DOWNSTREAM_ARBITRARIES.poke.map((m) => m[1]),
  PullResponseBody: DOWNSTREAM_ARBITRARIES.pull.map((m) => m[1]),
  Mutation: mutation,
  PatchOperation: patchOperation,
  ErrorKind: DOWNSTREAM_ARBITRARIES.error.map((m) => m[1]),
  IndexDefinition: indexDefinition,
  SecondaryIndexKey: fc.string(),
  ChunkRecord: fc.record({ hash, data: fc.jsonValue({ maxDepth: 2 }), refs: fc.array(hash, { maxLength: 3 }) }),
  ClientGroupRecord: fc.record({
    headHash: hash,
    mutatorNames: fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
    indexes: fc.dictionary(fc.string({ maxLength: 3 }), indexDefinition, { maxKeys: 2 }),
    mutationIDs: ids,
    lastServerAckdMutationIDs: lastMutationIDChanges,
    disabled: fc.boolean(),
  }),
  ClientRecord: fc.record({ heartbeatTimestampMs: fc.double({ noNaN: true, noDefaultInfinity: true }), headHash: hash, clientGroupID: hash, tempRefreshHash: fc.option(hash, { nil: null }) }),
  ClientOptionsData: fc.record({ userID: fc.string(), roomID: fc.string(), socketOrigin: fc.option(fc.string(), { nil: null }), schemaVersion: fc.string() }, { requiredKeys: ['userID', 'roomID', 'socketOrigin'] }),
};

/** What a corruption puts somewhere. */
const ODD_VALUES: unknown[] = [null, true, 0, -1, 1.5, 2 ** 53, '', 'x', 'put', 'del', 'clear', 'poke', [], [1], {}, { op: 'put' }, { op: 7 }, { op: 'nope' }];

type Path = readonly (string | number)[];

function paths(value: unknown, at: Path = []): Path[] {
  const out: Path[] = [at];
  if (Array.isArray(value)) value.forEach((item, i) => out.push(...paths(item, [...at, i])));
  else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) out.push(...paths(item, [...at, key]));
  return out;
}

/** A copy of `value` with the node at `path` changed by `edit` (its parent and key), or replaced wholesale at the root. */
function corrupt(value: unknown, path: Path, how: number, odd: unknown): unknown {
  const copy = structuredClone(value) as unknown;
  if (path.length === 0) return how % 2 === 0 ? odd : copy;
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const key = path[path.length - 1]!;
  const node = parent[key];
  switch (how) {
    case 0:
      parent[key] = odd;
      break;
    case 1:
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      break;
    case 2:
      if (Array.isArray(node)) node.push(odd);
      else if (typeof node === 'object' && node !== null) (node as Record<string, unknown>)['zz/~'] = odd;
      else parent[key] = odd;
      break;
    default:
      if (Array.isArray(parent)) parent.push(odd);
      else parent[`x${String(key)}`] = odd;
  }
  return copy;
}

const shape = (errors: readonly ValidationError[] | null | undefined) => (errors ?? null) && errors!.map(({ instancePath, keyword, params }) => ({ instancePath, keyword, params }));

function agree(name: string, value: unknown): void {
  const ours = (generated as unknown as Record<string, Validator<unknown>>)[validatorName(name)]!;
  const theirs = ajv.getSchema(`urn:roomsync:protocol:v1:${name}`)!;
  const ok = ours(value);
  expect(ok, `${name} ${JSON.stringify(value)}`).toBe(theirs(value));
  if (!ok) expect(shape(ours.errors), `${name} ${JSON.stringify(value)}`).toEqual(shape(theirs.errors as ValidationError[]));
  else expect(ours.errors).toBeNull();
}

describe('the compact validators', () => {
  it('cover the server → client messages and the records the client checks; the server keeps ajv for what it validates', () => {
    const names = compact.map((e) => e.name);
    for (const name of ['ConnectedMessage', 'PongMessage', 'PokeMessage', 'PullResponseMessage', 'ErrorMessage', 'ClientGroupRecord', 'ClientRecord']) expect(names).toContain(name);
    for (const name of ['PingMessage', 'PushMessage', 'PullRequestMessage', 'ConnectQuery']) expect(names).not.toContain(name);
    expect(Object.keys(SAMPLES).sort()).toEqual(names.sort());
  });

  it('refuses a schema with a keyword schema-check.ts does not read', () => {
    expect(isCompact({ type: 'string', maxLength: 3 })).toBe(false);
    expect(isCompact({ type: 'array', items: [{}], additionalItems: { type: 'string' } })).toBe(false);
    expect(isCompact({ oneOf: [{ type: 'string' }, { type: 'number' }] })).toBe(false);
    expect(isCompact({ type: 'object', properties: { a: { $ref: '#' } } })).toBe(false);
    expect(isCompact({ type: 'object', properties: { a: { minLength: 1, type: 'string' } } })).toBe(true);
  });

  for (const { name } of compact) {
    it(`${name}: the same verdict and errors as ajv, on valid values and values corrupted at any depth`, () => {
      const sample = SAMPLES[name]!;
      fc.assert(
        fc.property(sample, fc.nat(), fc.nat({ max: 3 }), fc.constantFrom(...ODD_VALUES), (value, pick, how, odd) => {
          agree(name, value);
          const all = paths(value);
          agree(name, corrupt(value, all[pick % all.length]!, how, odd));
        }),
        { numRuns: RUNS },
      );
      fc.assert(fc.property(fc.jsonValue({ maxDepth: 3 }), (value) => agree(name, value)), { numRuns: 100 });
    });
  }
});
