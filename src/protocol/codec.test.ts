import { describe, expect, it } from 'vitest';
import { decodeDownstream, encodeUpstream } from './codec';
import { decodeUpstream, encodeDownstream } from './server-codec';
import { InvalidMessageError } from './protocol-error';

// One frame for every message shape PROTOCOL.md shows.
const DOWNSTREAM_EXAMPLES = [
  '["connected",{"wsid":"V1StGXR8_Z5jdHi6B-myT"}]',
  '["connected",{"wsid":"V1StGXR8_Z5jdHi6B-myT","timestamp":1732186000000}]',
  '["pong",{}]',
  '["poke",{"baseCookie":null,"cookie":1,"lastMutationIDChanges":{"c1":3},"patch":[{"op":"put","key":"a","value":{"n":1}},{"op":"del","key":"b"},{"op":"clear"}],"timestamp":1732186000000,"requestID":"r1"}]',
  '["poke",{"baseCookie":7,"cookie":8,"lastMutationIDChanges":{},"patch":[],"requestID":"r2"}]',
  '["pull",{"cookie":8,"lastMutationIDChanges":{"c9":12},"requestID":"pull-1"}]',
  '["error","Unauthorized","bad token"]',
  '["error","RoomNotFound","room-1"]',
];

const UPSTREAM_EXAMPLES = [
  '["ping",{}]',
  '["push",{"timestamp":12.5,"clientGroupID":"g1","mutations":[{"id":1,"clientID":"c1","name":"put","args":{"key":"a","value":1},"timestamp":11.25}],"pushVersion":1,"schemaVersion":"1","requestID":"r1"}]',
  '["push",{"timestamp":13,"clientGroupID":"g1","mutations":[],"pushVersion":1,"schemaVersion":"","requestID":"r2"}]',
  '["pull",{"clientGroupID":"g2","cookie":null,"requestID":"p1"}]',
  '["pull",{"clientGroupID":"g2","cookie":42,"requestID":"p2"}]',
];

function decodeError(decode: (text: string) => unknown, text: string): InvalidMessageError {
  try {
    decode(text);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidMessageError);
    return error as InvalidMessageError;
  }
  throw new Error(`expected ${text} to be rejected`);
}

describe('decodeDownstream', () => {
  it.each(DOWNSTREAM_EXAMPLES)('decodes %s', (frame) => {
    expect(decodeDownstream(frame)).toEqual(JSON.parse(frame));
  });

  it.each([
    ['non-JSON text', 'not json', /not JSON/, ''],
    ['an empty array', '[]', /expected a JSON array/, ''],
    ['an unknown message name', '["bogus",{}]', /unknown message name "bogus"/, '/0'],
    [
      'a poke whose cookie is a string',
      '["poke",{"baseCookie":null,"cookie":"1","lastMutationIDChanges":{},"patch":[],"requestID":"r"}]',
      /\/1\/cookie must be integer/,
      '/1/cookie',
    ],
    [
      'a patch op upsert',
      '["poke",{"baseCookie":null,"cookie":1,"lastMutationIDChanges":{},"patch":[{"op":"upsert"}],"requestID":"r"}]',
      /\/1\/patch\/0.*"upsert"/,
      '/1/patch/0',
    ],
    ['an error frame with an unknown kind', '["error","Nope","x"]', /\/1 must be equal to one of the allowed values/, '/1'],
    [
      'a poke without cookie',
      '["poke",{"baseCookie":null,"lastMutationIDChanges":{},"patch":[],"requestID":"r"}]',
      /must have required property 'cookie'/,
      '/1',
    ],
    [
      'a put op without value',
      '["poke",{"baseCookie":null,"cookie":1,"lastMutationIDChanges":{},"patch":[{"op":"put","key":"k"}],"requestID":"r"}]',
      /\/1\/patch\/0 must have required property 'value'/,
      '/1/patch/0',
    ],
    ['a connected message without wsid', '["connected",{}]', /must have required property 'wsid'/, '/1'],
    ['a JSON object instead of an array', '{"poke":1}', /expected a JSON array/, ''],
    ['a message without a body', '["pong"]', /pong message/, ''],
    ['a negative cookie', '["pull",{"cookie":-1,"lastMutationIDChanges":{},"requestID":"r"}]', /cookie must be >= 0/, '/1/cookie'],
    ['a fractional last mutation id', '["pull",{"cookie":1,"lastMutationIDChanges":{"c":1.5},"requestID":"r"}]', /must be integer/, '/1/lastMutationIDChanges/c'],
  ])('rejects %s with InvalidMessage', (_what, frame, message, path) => {
    const error = decodeError(decodeDownstream, frame);
    expect(error.kind).toBe('InvalidMessage');
    expect(error.message).toMatch(message);
    expect(error.path).toBe(path);
  });

  it('tolerates unknown extra fields in bodies (a newer server must not break an older client)', () => {
    const frame = '["poke",{"baseCookie":1,"cookie":2,"lastMutationIDChanges":{},"patch":[{"op":"del","key":"k","why":"x"}],"requestID":"r","debug":{"x":1}}]';
    expect(decodeDownstream(frame)).toEqual(JSON.parse(frame));
    expect(decodeDownstream('["connected",{"wsid":"w","serverVersion":"2"}]')[0]).toBe('connected');
  });

  it('rejects extra tuple elements', () => {
    expect(decodeError(decodeDownstream, '["pong",{},1]').message).toMatch(/must NOT have more than 2 items/);
  });

  it('does not treat inherited property names as message names', () => {
    expect(decodeError(decodeDownstream, '["constructor",{}]').message).toMatch(/unknown message name/);
    expect(decodeError(decodeDownstream, '["__proto__",{}]').message).toMatch(/unknown message name/);
  });

  it('reports a non-string frame as InvalidMessage', () => {
    expect(decodeError(decodeDownstream, new Uint8Array([1]) as unknown as string).message).toMatch(/expected a text frame/);
  });
});

describe('decodeUpstream', () => {
  it.each(UPSTREAM_EXAMPLES)('decodes %s', (frame) => {
    expect(decodeUpstream(frame)).toEqual(JSON.parse(frame));
  });

  it('rejects a push whose mutation id is 1.5', () => {
    const frame = '["push",{"timestamp":1,"clientGroupID":"g","mutations":[{"id":1.5,"clientID":"c","name":"m","args":null,"timestamp":1}],"pushVersion":1,"schemaVersion":"1","requestID":"r"}]';
    const error = decodeError(decodeUpstream, frame);
    expect(error.message).toMatch(/\/1\/mutations\/0\/id must be integer/);
    expect(error.path).toBe('/1/mutations/0/id');
  });

  it('rejects a mutation id of 0 and an unknown push version', () => {
    const push = (id: number, pushVersion: number) =>
      JSON.stringify(['push', { timestamp: 1, clientGroupID: 'g', mutations: [{ id, clientID: 'c', name: 'm', args: null, timestamp: 1 }], pushVersion, schemaVersion: '', requestID: 'r' }]);
    expect(decodeError(decodeUpstream, push(0, 1)).message).toMatch(/id must be >= 1/);
    expect(decodeError(decodeUpstream, push(1, 2)).message).toMatch(/pushVersion must be equal to constant \(1\)/);
  });

  it('is strict: unknown extra fields are rejected', () => {
    const error = decodeError(decodeUpstream, '["ping",{"x":1}]');
    expect(error.message).toMatch(/unexpected property "x"/);
    expect(decodeError(decodeUpstream, '["pull",{"clientGroupID":"g","cookie":1,"requestID":"r","extra":true}]').message).toMatch(
      /unexpected property "extra"/,
    );
  });

  it('rejects downstream-only messages', () => {
    expect(decodeError(decodeUpstream, '["pong",{}]').message).toMatch(/unknown message name "pong"/);
  });
});

describe('encode', () => {
  it('produces the exact frames', () => {
    expect(encodeUpstream(['ping', {}])).toBe('["ping",{}]');
    expect(encodeDownstream(['error', 'InvalidPush', 'gap'])).toBe('["error","InvalidPush","gap"]');
    for (const frame of DOWNSTREAM_EXAMPLES) expect(encodeDownstream(decodeDownstream(frame))).toBe(frame);
    for (const frame of UPSTREAM_EXAMPLES) expect(encodeUpstream(decodeUpstream(frame))).toBe(frame);
  });
});
