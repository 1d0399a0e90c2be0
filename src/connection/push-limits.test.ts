import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { takePushBatch } from './push-batches';
import { encodePushFrame } from './push-frame';
import { assertMutationFitsPush, MutationTooLargeError, PUSH_MAX_FRAME_BYTES, PUSH_MAX_MUTATIONS, soloPushFrameBytes } from './push-limits';
import { utf8ByteLength } from './utf8-length';

const UUID = '6f1c0e7a-3b7d-4f7e-9a51-2f0b8c1d4e5a';
const REQUEST_ID = 'V1StGXR8_Z5jdHi6B-myT';

describe('limits every server accepts', () => {
  it('stay below the reference server defaults (1 MiB frames, 1000 mutations per push)', () => {
    expect(PUSH_MAX_FRAME_BYTES).toBeLessThan(1024 * 1024);
    expect(PUSH_MAX_MUTATIONS).toBeLessThan(1000);
  });
});

describe('assertMutationFitsPush', () => {
  it('accepts an ordinary mutation', () => {
    expect(() => assertMutationFitsPush('setTitle', { id: 'doc-1', title: 'Hello' }, '1')).not.toThrow();
  });

  it('refuses one that cannot fit a push frame, naming the mutator and the sizes', () => {
    const args = { text: 'x'.repeat(PUSH_MAX_FRAME_BYTES) };
    let error: unknown;
    try {
      assertMutationFitsPush('saveDraft', args, '1');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MutationTooLargeError);
    const tooLarge = error as MutationTooLargeError;
    expect(tooLarge.kind).toBe('MutationTooLarge');
    expect(tooLarge.mutatorName).toBe('saveDraft');
    expect(tooLarge.maxFrameBytes).toBe(PUSH_MAX_FRAME_BYTES);
    expect(tooLarge.frameBytes).toBeGreaterThan(PUSH_MAX_FRAME_BYTES);
    expect(tooLarge.message).toContain('saveDraft');
    expect(tooLarge.message).toContain(`${tooLarge.frameBytes} bytes`);
    expect(tooLarge.message).toContain(`${PUSH_MAX_FRAME_BYTES} bytes`);
  });

  it('counts UTF-8 bytes, not characters', () => {
    const chars = Math.floor(PUSH_MAX_FRAME_BYTES / 3);
    expect(() => assertMutationFitsPush('m', 'a'.repeat(chars), '')).not.toThrow();
    expect(() => assertMutationFitsPush('m', '€'.repeat(chars), '')).toThrow(MutationTooLargeError);
  });

  it('lets through only mutations that then fit a real frame alone', () => {
    const maxFrameBytes = 2000;
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 900 }), fc.nat({ max: 2 ** 40 }), (text, id) => {
        const fits = soloPushFrameBytes('m', { text }, 'v1') <= maxFrameBytes;
        const mutation = { id: id + 1, clientID: UUID, name: 'm', args: { text }, timestamp: 1_700_000_000_000.25 };
        const envelope = { timestamp: 1_700_000_000_000.5, clientGroupID: UUID, schemaVersion: 'v1', requestID: REQUEST_ID };
        const batch = takePushBatch([mutation], 0, utf8ByteLength(encodePushFrame(envelope, [])), { maxFrameBytes, maxMutations: 10 });
        if (fits) expect(batch.frameBytes).toBeLessThanOrEqual(maxFrameBytes);
      }),
    );
  });
});
