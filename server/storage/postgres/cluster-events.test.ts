import { describe, expect, it } from 'vitest';
import { decodeEvent, encodeEvent, MAX_NOTIFY_PAYLOAD_BYTES } from './cluster-events';

describe('cluster events as NOTIFY payloads', () => {
  it('round-trip, naming the node that sent them', () => {
    for (const event of [
      { kind: 'room', roomID: 'r/é', version: 42 },
      { kind: 'room', roomID: 'r' },
      { kind: 'invalidate', all: false, userID: 'u', roomID: 'r' },
      { kind: 'invalidate', all: true },
      { kind: 'resync' },
    ] as const) {
      expect(decodeEvent(encodeEvent('node-1', event))).toEqual({ nodeID: 'node-1', event });
    }
    expect(encodeEvent('n', { kind: 'room', roomID: 'r', version: 7 })).toBe('{"n":"n","k":"room","r":"r","v":7}');
  });

  it(`stay under ${MAX_NOTIFY_PAYLOAD_BYTES} bytes (PostgreSQL refuses 8,000): an event too long to name its room or user becomes a broader one`, () => {
    const long = 'x'.repeat(MAX_NOTIFY_PAYLOAD_BYTES);
    expect(decodeEvent(encodeEvent('n', { kind: 'room', roomID: long, version: 1 }))).toEqual({ nodeID: 'n', event: { kind: 'resync' } });
    expect(decodeEvent(encodeEvent('n', { kind: 'invalidate', all: false, userID: long }))).toEqual({ nodeID: 'n', event: { kind: 'invalidate', all: true } });
  });

  it('ignore payloads that are not ours', () => {
    for (const payload of ['', 'not json', '{}', '{"n":"x","k":"other"}', '{"n":"x","k":"room"}', '[1]']) expect(decodeEvent(payload)).toBeUndefined();
  });
});
