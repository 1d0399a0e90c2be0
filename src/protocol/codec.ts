/**
 * The client's side of the codec: decodes server → client frames and encodes
 * client → server frames. The server's side is server-codec.ts, so a client
 * bundle carries only the downstream validators, whatever its bundler drops.
 */
import type { Downstream, Upstream } from './messages';
import { decodeFrame, type ValidatorTable } from './frame-decoder';
import {
  validateConnectedMessage,
  validateErrorMessage,
  validatePokeMessage,
  validatePongMessage,
  validatePullResponseMessage,
} from './generated/validators';

const DOWNSTREAM: ValidatorTable<Downstream> = {
  connected: validateConnectedMessage,
  error: validateErrorMessage,
  pong: validatePongMessage,
  poke: validatePokeMessage,
  pull: validatePullResponseMessage,
};

/** Parses and validates a server → client frame. Throws InvalidMessageError, never anything else. */
export function decodeDownstream(text: string): Downstream {
  return decodeFrame(text, DOWNSTREAM, 'downstream');
}

export function encodeUpstream(message: Upstream): string {
  return JSON.stringify(message);
}
