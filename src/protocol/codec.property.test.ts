import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_SCHEMAS } from '../../protocol/index';
import { toJsonSchema, type JsonSchema } from '../../codegen/json-schema';
import { decodeDownstream, encodeUpstream } from './codec';
import { decodeUpstream, encodeDownstream } from './server-codec';
import { InvalidMessageError } from './protocol-error';
import { DOWNSTREAM_ARBITRARIES, UPSTREAM_ARBITRARIES } from './testing/arbitraries';
import type { Downstream, Upstream } from './messages';

const RUNS = 300;

/** The body schema of each message, to know which fields are required and typed. */
const bodySchemas = new Map<string, JsonSchema>();
for (const entry of PROTOCOL_SCHEMAS) {
  if (entry.role === 'record') continue;
  const items = toJsonSchema(entry).items as JsonSchema[];
  bodySchemas.set(`${entry.role}:${(items[0] as { const: string }).const}`, items[1]!);
}

type Direction = 'upstream' | 'downstream';
const decoders: Record<Direction, (text: string) => unknown> = { upstream: decodeUpstream, downstream: decodeDownstream };

function expectInvalidMessage(decode: (text: string) => unknown, text: string): void {
  let thrown: unknown;
  try {
    decode(text);
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `accepted ${text}`).toBeInstanceOf(InvalidMessageError);
}

const SAMPLE_VALUES: unknown[] = [true, 'x', 1.5, 7, -3, null, [], {}];

function matchesType(value: unknown, type: unknown): boolean {
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => {
    switch (t) {
      case 'integer':
        return Number.isInteger(value);
      case 'number':
        return typeof value === 'number';
      case 'array':
        return Array.isArray(value);
      case 'object':
        return typeof value === 'object' && value !== null && !Array.isArray(value);
      case 'null':
        return value === null;
      default:
        return typeof value === t;
    }
  });
}

/** Corruptions that must each make a valid message invalid. */
function corruptions(message: readonly unknown[], body: JsonSchema | undefined): fc.Arbitrary<string> {
  const text = JSON.stringify(message);
  const options: fc.Arbitrary<string>[] = [fc.nat({ max: text.length - 1 }).map((length) => text.slice(0, length))];
  if (body?.type === 'object') {
    const object = message[1] as Record<string, unknown>;
    const required = (body.required ?? []) as string[];
    if (required.length > 0) {
      options.push(
        fc.constantFrom(...required).map((key) => {
          const { [key]: _dropped, ...rest } = object;
          return JSON.stringify([message[0], rest]);
        }),
      );
    }
    const typed = Object.entries((body.properties ?? {}) as Record<string, JsonSchema>).filter(
      ([key, schema]) => schema.type !== undefined && key in object,
    );
    if (typed.length > 0) {
      options.push(
        fc.constantFrom(...typed).chain(([key, schema]) =>
          fc
            .constantFrom(...SAMPLE_VALUES.filter((value) => !matchesType(value, schema.type)))
            .map((wrong) => JSON.stringify([message[0], { ...object, [key]: wrong }])),
        ),
      );
    }
  } else {
    options.push(fc.constant(JSON.stringify(message.slice(0, 1))));
    options.push(fc.constantFrom(...SAMPLE_VALUES.filter((v) => typeof v !== 'string')).map((wrong) => JSON.stringify([message[0], wrong, message[2]])));
  }
  options.push(fc.constant(JSON.stringify([`${String(message[0])}x`, message[1]])));
  return fc.oneof(...options);
}

function roundTripAndCorrupt(direction: Direction, name: string, arbitrary: fc.Arbitrary<Upstream | Downstream>) {
  const decode = decoders[direction];
  const encode = (message: Upstream | Downstream) =>
    direction === 'upstream' ? encodeUpstream(message as Upstream) : encodeDownstream(message as Downstream);

  it(`${direction} ${name}: encode → decode is the identity`, () => {
    fc.assert(
      fc.property(arbitrary, (message) => {
        expect(decode(encode(message))).toStrictEqual(message);
      }),
      { numRuns: RUNS },
    );
  });

  it(`${direction} ${name}: corrupted frames are rejected with InvalidMessage only`, () => {
    const body = bodySchemas.get(`${direction}:${name}`);
    fc.assert(
      fc.property(
        arbitrary.chain((message) => corruptions(message, body)),
        (text) => expectInvalidMessage(decode, text),
      ),
      { numRuns: RUNS },
    );
  });
}

describe('codec properties', () => {
  for (const [name, arbitrary] of Object.entries(UPSTREAM_ARBITRARIES)) roundTripAndCorrupt('upstream', name, arbitrary);
  for (const [name, arbitrary] of Object.entries(DOWNSTREAM_ARBITRARIES)) roundTripAndCorrupt('downstream', name, arbitrary);

  it('arbitrary text never throws anything but InvalidMessage', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.jsonValue().map((v) => JSON.stringify(v))), (text) => {
        for (const decode of Object.values(decoders)) {
          try {
            decode(text);
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidMessageError);
          }
        }
      }),
      { numRuns: RUNS * 3 },
    );
  });
});
