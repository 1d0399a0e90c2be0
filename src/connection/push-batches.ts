import type { Mutation } from '../protocol/generated/types';
import { encodeMutation, encodePushFrame, type PushEnvelope } from './push-frame';
import type { PushLimits } from './push-limits';
import { utf8ByteLength } from './utf8-length';

/** The mutations of one push frame, encoded, how many bytes the frame takes, and where the next batch starts. */
export interface PushBatch {
  readonly mutations: readonly Mutation[];
  readonly encoded: readonly string[];
  readonly frameBytes: number;
  /** Index in the list of the first mutation after this batch (the list's length when none is left). */
  readonly next: number;
}

/**
 * Takes, from `mutations[start]` on and skipping those `include` rejects, as
 * many mutations as fit one frame: at most `limits.maxMutations`, and at most
 * `limits.maxFrameBytes` with an envelope of `envelopeBytes`. At least one
 * when any is left, so a mutation too large for any frame goes alone instead
 * of blocking the ones after it.
 */
export function takePushBatch(
  mutations: readonly Mutation[],
  start: number,
  envelopeBytes: number,
  limits: PushLimits,
  include: (m: Mutation) => boolean = () => true,
): PushBatch {
  const taken: Mutation[] = [];
  const encoded: string[] = [];
  let frameBytes = envelopeBytes;
  let i = start;
  for (; i < mutations.length && taken.length < limits.maxMutations; i++) {
    const m = mutations[i]!;
    if (!include(m)) continue;
    const text = encodeMutation(m);
    const bytes = utf8ByteLength(text) + (taken.length === 0 ? 0 : 1);
    if (taken.length > 0 && frameBytes + bytes > limits.maxFrameBytes) break;
    taken.push(m);
    encoded.push(text);
    frameBytes += bytes;
  }
  return { mutations: taken, encoded, frameBytes, next: i };
}

/** The next push frame under `envelope`: its batch (takePushBatch) and its text. */
export function nextPushFrame(
  mutations: readonly Mutation[],
  start: number,
  envelope: PushEnvelope,
  limits: PushLimits,
  include?: (m: Mutation) => boolean,
): { readonly batch: PushBatch; readonly frame: string } {
  const batch = takePushBatch(mutations, start, utf8ByteLength(encodePushFrame(envelope, [])), limits, include);
  return { batch, frame: encodePushFrame(envelope, batch.encoded) };
}
