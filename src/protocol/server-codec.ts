/**
 * The server's side of the codec: decodes client → server frames and encodes
 * server → client frames (the client's side is codec.ts).
 */
import type { Downstream, Upstream } from './messages';
import { decodeFrame, type ValidatorTable } from './frame-decoder';
import { validatePingMessage, validatePullRequestMessage, validatePushMessage } from './generated/validators';

const UPSTREAM: ValidatorTable<Upstream> = {
  ping: validatePingMessage,
  push: validatePushMessage,
  pull: validatePullRequestMessage,
};

/** Parses and validates a client → server frame (strict: no unknown fields). Throws InvalidMessageError only. */
export function decodeUpstream(text: string): Upstream {
  return decodeFrame(text, UPSTREAM, 'upstream');
}

export function encodeDownstream(message: Downstream): string {
  return JSON.stringify(message);
}
