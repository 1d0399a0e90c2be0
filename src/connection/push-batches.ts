import type { Mutation } from '../protocol/generated/types';
import { encodeMutation } from './push-frame';
import type { PushLimits } from './push-limits';
import { utf8ByteLength } from './utf8-length';

/** The mutations of one push frame, encoded, and how many bytes the frame takes. */
export interface PushBatch {
  readonly mutations: readonly Mutation[];
  readonly encoded: readonly string[];
  readonly frameBytes: number;
}

/**
 * Takes, from `mutations[start]` on, as many mutations as fit one frame:
 * at most `limits.maxMutations`, and at most `limits.maxFrameBytes` with an
 * envelope of `envelopeBytes`. Always at least one, so a mutation too large
 * for any frame goes alone instead of blocking the ones after it.
 */
export function takePushBatch(mutations: readonly Mutation[], start: number, envelopeBytes: number, limits: PushLimits): PushBatch {
  const taken: Mutation[] = [];
  const encoded: string[] = [];
  let frameBytes = envelopeBytes;
  for (let i = start; i < mutations.length && taken.length < limits.maxMutations; i++) {
    const text = encodeMutation(mutations[i]!);
    const bytes = utf8ByteLength(text) + (taken.length === 0 ? 0 : 1);
    if (taken.length > 0 && frameBytes + bytes > limits.maxFrameBytes) break;
    taken.push(mutations[i]!);
    encoded.push(text);
    frameBytes += bytes;
  }
  return { mutations: taken, encoded, frameBytes };
}
