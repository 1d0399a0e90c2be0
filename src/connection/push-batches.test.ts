import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Mutation } from '../protocol/generated/types';
import { takePushBatch } from './push-batches';
import { encodePushFrame } from './push-frame';
import { utf8ByteLength } from './utf8-length';

const ENVELOPE = { timestamp: 1, clientGroupID: 'g', schemaVersion: '1', requestID: 'r' };
const ENVELOPE_BYTES = utf8ByteLength(encodePushFrame(ENVELOPE, []));

function mutations(sizes: readonly number[]): Mutation[] {
  return sizes.map((size, i) => ({ id: i + 1, clientID: 'c', name: 'm', args: 'é'.repeat(size), timestamp: 0 }));
}

/** Splits everything into consecutive batches, as the pusher does. */
function split(all: readonly Mutation[], maxFrameBytes: number, maxMutations: number) {
  const batches = [];
  for (let start = 0; start < all.length; ) {
    const batch = takePushBatch(all, start, ENVELOPE_BYTES, { maxFrameBytes, maxMutations });
    batches.push(batch);
    start += batch.mutations.length;
  }
  return batches;
}

describe('takePushBatch', () => {
  it('cuts at the mutation count', () => {
    expect(split(mutations([1, 1, 1, 1, 1]), 10_000, 2).map((b) => b.mutations.map((m) => m.id))).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('cuts at the frame size, measured in UTF-8 bytes of the real frame', () => {
    const batches = split(mutations([100, 100, 100]), ENVELOPE_BYTES + 600, 100);
    expect(batches.map((b) => b.mutations.length)).toEqual([2, 1]);
    for (const b of batches) expect(b.frameBytes).toBe(utf8ByteLength(encodePushFrame(ENVELOPE, b.encoded)));
  });

  it('sends a mutation larger than any frame alone rather than blocking the ones after it', () => {
    const batches = split(mutations([10, 5000, 10]), ENVELOPE_BYTES + 1000, 100);
    expect(batches.map((b) => b.mutations.map((m) => m.id))).toEqual([[1], [2], [3]]);
  });

  it('skips the mutations the caller leaves out and says where the next batch starts', () => {
    const all = mutations([1, 1, 1, 1, 1, 1]);
    const include = (m: { id: number }) => m.id !== 2 && m.id !== 3;
    const first = takePushBatch(all, 0, ENVELOPE_BYTES, { maxFrameBytes: 10_000, maxMutations: 2 }, include);
    expect([first.mutations.map((m) => m.id), first.next]).toEqual([[1, 4], 4]);
    const second = takePushBatch(all, first.next, ENVELOPE_BYTES, { maxFrameBytes: 10_000, maxMutations: 2 }, include);
    expect([second.mutations.map((m) => m.id), second.next]).toEqual([[5, 6], 6]);
  });

  it('keeps every mutation once, in order, each batch within the limits unless it is one oversized mutation', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 300 }), { maxLength: 60 }), fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 1, max: 10 }), (sizes, room, maxMutations) => {
        const all = mutations(sizes);
        const maxFrameBytes = ENVELOPE_BYTES + room;
        const batches = split(all, maxFrameBytes, maxMutations);
        expect(batches.flatMap((b) => b.mutations)).toEqual(all);
        for (const b of batches) {
          expect(b.mutations.length).toBeLessThanOrEqual(maxMutations);
          if (b.mutations.length > 1) expect(b.frameBytes).toBeLessThanOrEqual(maxFrameBytes);
        }
      }),
    );
  });
});
