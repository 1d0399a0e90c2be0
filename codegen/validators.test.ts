/**
 * The generated validators against ajv compiling the same schemas at run time
 * (AJV_OPTIONS, code points counted): codegen rewrites ajv's standalone code
 * (schema reads inlined, one shared fail(), unused arguments left out, string
 * lengths in UTF-16 units where only "non-empty" is asked, checks that cannot
 * fail where ajv writes them left out, Number.isInteger), so for every
 * schema, valid samples and samples with one part replaced, removed or added
 * must get the same answer and the same first error.
 */
import Ajv, { type ErrorObject } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_SCHEMAS } from '../protocol/index';
import * as generated from '../src/protocol/generated/validators.js';
import type { Validator } from '../src/protocol/generated/validators';
import { DOWNSTREAM_ARBITRARIES, UPSTREAM_ARBITRARIES } from '../src/protocol/testing/arbitraries';
import { toJsonSchema } from './json-schema';
import { AJV_OPTIONS, lengthBoundsAreAtMostOne, validatorName } from './validators';

const messages: Record<string, fc.Arbitrary<unknown>> = {
  PingMessage: UPSTREAM_ARBITRARIES.ping,
  PushMessage: UPSTREAM_ARBITRARIES.push,
  PullRequestMessage: UPSTREAM_ARBITRARIES.pull,
  ConnectedMessage: DOWNSTREAM_ARBITRARIES.connected,
  PongMessage: DOWNSTREAM_ARBITRARIES.pong,
  PokeMessage: DOWNSTREAM_ARBITRARIES.poke,
  PullResponseMessage: DOWNSTREAM_ARBITRARIES.pull,
  ErrorMessage: DOWNSTREAM_ARBITRARIES.error,
};

/** A valid sample of each schema that no message arbitrary gives. */
const SAMPLES: Record<string, unknown> = {
  Mutation: { id: 1, clientID: 'c', name: 'inc', args: { by: [1, null] }, timestamp: 2.5 },
  PatchOperation: { op: 'put', key: 'k', value: { a: [1, 'b'] } },
  ConnectQuery: { clientID: 'c', clientGroupID: 'g', roomID: 'r', baseCookie: '12', ts: '1.5', lmid: '3', wsid: 'abcdefghij_-KLMNOPQ12' },
  ErrorKind: 'RoomClosed',
  JsonValue: { a: [1, 'x', null, true, { b: {} }] },
  IndexDefinition: { prefix: 'p/', jsonPointer: '/a', allowEmpty: true },
  SecondaryIndexKey: 'key',
  RefCount: 3,
  ChunkRecord: { hash: 'h', data: { x: 1 }, refs: ['h1', 'h2'] },
  ClientGroupRecord: {
    headHash: 'h',
    mutatorNames: ['inc'],
    indexes: { byName: { jsonPointer: '/name' } },
    mutationIDs: { c: 2 },
    lastServerAckdMutationIDs: { c: 1 },
    disabled: false,
  },
  ClientRecord: { heartbeatTimestampMs: 5, headHash: 'h', clientGroupID: 'g', tempRefreshHash: null },
  ClientOptionsData: { userID: 'u', roomID: 'r', socketOrigin: 'wss://x', auth: 'a', schemaVersion: '1', logLevel: 'info' },
};

/** More valid samples where one schema has branches the first sample does not reach (a discriminated union's tags). */
const MORE_SAMPLES: Record<string, unknown[]> = {
  PatchOperation: [{ op: 'del', key: 'k' }, { op: 'clear' }],
};

const BODIES: Record<string, string> = {
  PushBody: 'PushMessage',
  PullRequestBody: 'PullRequestMessage',
  ConnectedBody: 'ConnectedMessage',
  PokeBody: 'PokeMessage',
  PullResponseBody: 'PullResponseMessage',
};

function validSamples(name: string): fc.Arbitrary<unknown> {
  if (name in messages) return messages[name]!;
  if (name in BODIES) return messages[BODIES[name]!]!.map((message) => (message as unknown[])[1]);
  if (name in SAMPLES) return fc.constantFrom(SAMPLES[name], ...(MORE_SAMPLES[name] ?? []));
  throw new Error(`no valid sample of ${name}: add one`);
}

/** Values that fail, or pass, most keywords somewhere. */
const REPLACEMENTS: unknown[] = [undefined, Number.NaN, Infinity, () => 1, '', 'x', '😀', 'wss://a', '0', '-1', 'ping', 'put', 'del', 'clear', 'info', 'RoomClosed', -1, 0, 1, 1.5, 65536, 2 ** 53, null, true, [], [1], {}, { op: 'put', key: 'k' }, { op: 'del' }, { op: 'clear' }, { op: 7 }];

type Path = readonly (string | number)[];

function paths(value: unknown, at: Path = []): Path[] {
  const out: Path[] = [at];
  if (Array.isArray(value)) value.forEach((item, i) => out.push(...paths(item, [...at, i])));
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) out.push(...paths(item, [...at, key]));
  return out;
}

type Edit = { kind: 'replace'; by: unknown } | { kind: 'remove' } | { kind: 'add'; key: string; by: unknown };

function edited(value: unknown, path: Path, edit: Edit): unknown {
  if (path.length === 0) {
    if (edit.kind === 'replace') return edit.by;
    if (edit.kind === 'add') {
      if (Array.isArray(value)) return [...value, edit.by];
      if (value !== null && typeof value === 'object') return { ...value, [edit.key]: edit.by };
    }
    return value;
  }
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    if (rest.length === 0 && edit.kind === 'remove') copy.splice(head as number, 1);
    else copy[head as number] = edited(copy[head as number], rest, edit);
    return copy;
  }
  const copy = { ...(value as Record<string, unknown>) };
  if (rest.length === 0 && edit.kind === 'remove') delete copy[head as string];
  else copy[head as string] = edited(copy[head as string], rest, edit);
  return copy;
}

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), by: fc.oneof(fc.constantFrom(...REPLACEMENTS), fc.jsonValue({ maxDepth: 2 })) }),
  fc.constant({ kind: 'remove' as const }),
  fc.record({ kind: fc.constant('add' as const), key: fc.constantFrom('extra', 'op', 'key', 'value', 'cookie'), by: fc.constantFrom(...REPLACEMENTS) }),
);

function firstError(errors: readonly Partial<ErrorObject>[] | null | undefined): unknown {
  const error = errors?.[0];
  return error === undefined ? undefined : { instancePath: error.instancePath, keyword: error.keyword, params: error.params };
}

describe('generated validators', () => {
  const ajv = new Ajv({ ...AJV_OPTIONS, messages: false });
  for (const entry of PROTOCOL_SCHEMAS) {
    it(`${entry.name}: the same answer and first error as ajv at run time`, () => {
      const reference = ajv.compile(toJsonSchema(entry));
      const validate = (generated as unknown as Record<string, Validator<unknown>>)[validatorName(entry.name)]!;
      const sample = validSamples(entry.name);
      const same = (value: unknown) => {
        const ok = reference(value);
        expect(validate(value), JSON.stringify(value)).toBe(ok);
        if (!ok) expect(firstError(validate.errors), JSON.stringify(value)).toEqual(firstError(reference.errors));
      };
      fc.assert(fc.property(sample, (value) => {
        expect(validate(value), JSON.stringify(value)).toBe(true);
      }), { numRuns: 50 });
      fc.assert(
        fc.property(
          sample.chain((value) => fc.tuple(fc.constant(value), fc.constantFrom(...paths(value)), edit)),
          ([value, path, change]) => {
            same(edited(value, path, change));
          },
        ),
        { numRuns: 400 },
      );
      for (const value of [undefined, null, 0, '', 'x', [], {}, ['poke'], ['poke', {}, 1]]) same(value);
    });
  }

  it('counts string lengths in UTF-16 units only where every bound is "at least one"', () => {
    expect(lengthBoundsAreAtMostOne({ properties: { a: { type: 'string', minLength: 1 } } })).toBe(true);
    expect(lengthBoundsAreAtMostOne({ properties: { a: { type: 'string', minLength: 2 } } })).toBe(false);
    expect(lengthBoundsAreAtMostOne({ anyOf: [{ type: 'string', maxLength: 3 }] })).toBe(false);
  });
});
