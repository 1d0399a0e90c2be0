import { PUSH_VERSION } from '../../protocol/constants';
import type { Mutation } from '../protocol/generated/types';

/** Everything of a push body but its mutations. */
export interface PushEnvelope {
  readonly timestamp: number;
  readonly clientGroupID: string;
  readonly schemaVersion: string;
  readonly requestID: string;
}

/** One mutation as it appears in a push frame. */
export function encodeMutation(m: Mutation): string {
  return JSON.stringify({ id: m.id, clientID: m.clientID, name: m.name, args: m.args, timestamp: m.timestamp });
}

/**
 * The text of `["push", body]` from mutations already encoded with
 * encodeMutation: the same JSON as encoding the whole message, without
 * encoding any mutation twice (the pusher measures each one first).
 */
export function encodePushFrame(envelope: PushEnvelope, encodedMutations: readonly string[]): string {
  return (
    `["push",{"timestamp":${JSON.stringify(envelope.timestamp)}` +
    `,"clientGroupID":${JSON.stringify(envelope.clientGroupID)}` +
    `,"mutations":[${encodedMutations.join(',')}]` +
    `,"pushVersion":${PUSH_VERSION}` +
    `,"schemaVersion":${JSON.stringify(envelope.schemaVersion)}` +
    `,"requestID":${JSON.stringify(envelope.requestID)}}]`
  );
}
