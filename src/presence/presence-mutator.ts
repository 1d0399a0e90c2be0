import { PRESENCE_MUTATION_NAME, RESERVED_KEY_PREFIX } from '../../protocol/presence';
import type { MutatorDefs, WriteTransaction } from '../db/transaction-types';
import { ReservedMutatorNameError } from './errors';
import { entryWithState, presenceKey, readPresenceEntry } from './presence-entry';
import { presenceStateOfArgs } from './presence-state';

/**
 * The built-in presence mutation as the client runs it (optimistically, then
 * on every rebase): it sets the state of its client's entry when the client
 * is present, as the server does natively. The server's auth decides the user
 * id; here the entry keeps the one the server wrote.
 */
export async function setPresenceLocally(tx: WriteTransaction, args: unknown): Promise<void> {
  const { value } = presenceStateOfArgs(args);
  const key = presenceKey(tx.clientID);
  const next = entryWithState(readPresenceEntry(key, await tx.get(key)), value);
  if (next !== undefined) await tx.put(key, next);
}

/**
 * The app's mutators plus the built-in one. Every client registers it, so it
 * is part of every client group's mutator names alike.
 */
export function withPresenceMutator<MD extends MutatorDefs>(mutators: MD): MutatorDefs {
  for (const name of Object.keys(mutators)) if (name.startsWith(RESERVED_KEY_PREFIX)) throw new ReservedMutatorNameError(name);
  return { ...mutators, [PRESENCE_MUTATION_NAME]: setPresenceLocally };
}
