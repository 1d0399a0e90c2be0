/** Mutators for worker tests: a loop that never yields, and a heavy one. Loaded by room workers by URL. */
import type { WriteTransaction } from '../../src/db/transaction-types';

export const mutators = {
  async spin(): Promise<void> {
    for (;;) {
      // never yields: only stopping the thread ends it
    }
  },
  async whoami(tx: WriteTransaction, args: { key: string }): Promise<void> {
    const auth = (tx as WriteTransaction & { auth?: { userID: string } }).auth;
    await tx.put(args.key, { userID: auth?.userID ?? null, clientID: tx.clientID });
  },
};
