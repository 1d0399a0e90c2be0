import type { ReadonlyJSONValue } from '../../protocol/json';
import { encodeMutation, encodePushFrame } from './push-frame';
import { utf8ByteLength } from './utf8-length';

/**
 * Largest push frame a client sends, in UTF-8 bytes of the text frame. Every
 * server must accept frames at least this large (protocol/README.md, "Limits
 * every server must accept"); the reference server takes 1 MiB.
 */
export const PUSH_MAX_FRAME_BYTES = 512 * 1024;
/** Most mutations a client puts in one push frame; every server must accept at least this many (the reference server: 1000). */
export const PUSH_MAX_MUTATIONS = 500;

export interface PushLimits {
  /** @default PUSH_MAX_FRAME_BYTES */
  readonly maxFrameBytes: number;
  /** @default PUSH_MAX_MUTATIONS */
  readonly maxMutations: number;
}

export const DEFAULT_PUSH_LIMITS: PushLimits = { maxFrameBytes: PUSH_MAX_FRAME_BYTES, maxMutations: PUSH_MAX_MUTATIONS };

/** Longest client, client group or request id the size check allows for (ours are 36 and 21 characters). */
const MAX_ID_CHARS = 64;
/** Stand-ins at least as wide as any real value of their field. */
const WIDEST_ID = 'x'.repeat(MAX_ID_CHARS);
const WIDEST_TIMESTAMP = -Number.MAX_VALUE;
const WIDEST_MUTATION_ID = Number.MAX_SAFE_INTEGER;

/** A mutation whose push frame would exceed the frame limit: no server is bound to accept it, so it is never queued. */
export class MutationTooLargeError extends Error {
  readonly kind = 'MutationTooLarge' as const;
  readonly mutatorName: string;
  /** Bytes of the smallest push frame that could carry the mutation. */
  readonly frameBytes: number;
  readonly maxFrameBytes: number;

  constructor(mutatorName: string, frameBytes: number, maxFrameBytes: number) {
    super(
      `Mutation ${mutatorName} is too large to push: its push frame would take ${frameBytes} bytes, ` +
        `and a push frame may take at most ${maxFrameBytes} bytes. Keep large data out of mutation arguments.`,
    );
    this.name = 'MutationTooLargeError';
    this.mutatorName = mutatorName;
    this.frameBytes = frameBytes;
    this.maxFrameBytes = maxFrameBytes;
  }
}

/**
 * Bytes of a push frame carrying only this mutation, with every field the
 * client fills in (ids, timestamps) at its widest: an upper bound for any
 * frame that will really carry it alone.
 */
export function soloPushFrameBytes(name: string, args: ReadonlyJSONValue | undefined, schemaVersion: string): number {
  const mutation = encodeMutation({ id: WIDEST_MUTATION_ID, clientID: WIDEST_ID, name, args: args ?? null, timestamp: WIDEST_TIMESTAMP });
  const envelope = { timestamp: WIDEST_TIMESTAMP, clientGroupID: WIDEST_ID, schemaVersion, requestID: WIDEST_ID };
  return utf8ByteLength(encodePushFrame(envelope, [mutation]));
}

/**
 * Throws MutationTooLargeError when the mutation `name(args)` could not be
 * pushed in a frame of at most `maxFrameBytes`. Call it before a mutation is
 * queued: one that can never be pushed would block every mutation after it.
 */
export function assertMutationFitsPush(
  name: string,
  args: ReadonlyJSONValue | undefined,
  schemaVersion: string,
  maxFrameBytes: number = PUSH_MAX_FRAME_BYTES,
): void {
  const bytes = soloPushFrameBytes(name, args, schemaVersion);
  if (bytes > maxFrameBytes) throw new MutationTooLargeError(name, bytes, maxFrameBytes);
}
