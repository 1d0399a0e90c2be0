import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PUSH_VERSION } from '../../protocol/constants';
import { encodeUpstream } from '../protocol/codec';
import { decodeUpstream } from '../protocol/server-codec';
import type { Mutation } from '../protocol/generated/types';
import { encodeMutation, encodePushFrame } from './push-frame';

const mutation: fc.Arbitrary<Mutation> = fc.record({
  id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  clientID: fc.string({ minLength: 1 }),
  name: fc.string({ minLength: 1 }),
  args: fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Mutation['args']>,
  timestamp: fc.double({ noNaN: true, noDefaultInfinity: true }),
});

describe('push frame', () => {
  it('is the same text as encoding the whole push message, and decodes back to it', () => {
    fc.assert(
      fc.property(fc.array(mutation, { maxLength: 5 }), fc.string({ minLength: 1 }), fc.string(), fc.nat(), (mutations, clientGroupID, schemaVersion, timestamp) => {
        const envelope = { timestamp, clientGroupID, schemaVersion, requestID: 'r1' };
        const text = encodePushFrame(envelope, mutations.map(encodeMutation));
        const message = ['push', { timestamp, clientGroupID, mutations, pushVersion: PUSH_VERSION, schemaVersion, requestID: 'r1' }] as const;
        expect(text).toBe(encodeUpstream(JSON.parse(JSON.stringify(message))));
        expect(decodeUpstream(text)).toEqual(JSON.parse(text));
      }),
    );
  });
});
