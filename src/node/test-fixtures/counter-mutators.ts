/**
 * Mutators of the durability proof, run by the client and by the reference
 * server alike: `add(i)` marks item i and counts, so a mutation applied twice
 * shows as a count above the number of items.
 */
import type { WriteTransaction } from '../../db/transaction-types';

export const counterMutators = {
  add: async (tx: WriteTransaction, i: number) => {
    const count = ((await tx.get('count')) as number | undefined) ?? 0;
    await tx.put('count', count + 1);
    await tx.put(`item/${String(i).padStart(6, '0')}`, i);
  },
};

export const PROOF_USER_ID = 'proof-user';
export const PROOF_ROOM_ID = 'proof-room';
