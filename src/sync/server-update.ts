import type { ReadonlyJSONValue } from '../../protocol/json';
import type { PatchOperation } from '../../protocol/patch';

/** A poke or a pull answer, as the store applies it. */
export interface ServerUpdate {
  readonly baseCookie: ReadonlyJSONValue;
  readonly cookie: ReadonlyJSONValue;
  /** New last processed mutation ids of clients of this client group. */
  readonly lastMutationIDChanges: Readonly<Record<string, number>>;
  readonly patch: readonly PatchOperation[];
}

/** A mutation waiting for the server's acknowledgement, as pushed. */
export interface PendingMutation {
  readonly id: number;
  readonly clientID: string;
  readonly name: string;
  readonly args: ReadonlyJSONValue;
  readonly timestamp: number;
}
