/** Mutators for worker and room-process tests: loops that never yield, and slow ones. Loaded by URL. */
import type { WriteTransaction } from '../../src/db/transaction-types';

export const mutators = {
  async spin(): Promise<void> {
    for (;;) {
      // never yields: only stopping the thread ends it
    }
  },
  /** Waits `ms` (past the mutator timeout, say), then never yields. */
  async sleepThenSpin(_tx: WriteTransaction, args: { ms: number }): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, args.ms));
    for (;;) {
      // never yields
    }
  },
  /** Waits `ms`, then writes: an innocent mutation under way while another room's gets stuck. */
  async sleepThenPut(tx: WriteTransaction, args: { ms: number; key: string }): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, args.ms));
    await tx.put(args.key, true);
  },
  async whoami(tx: WriteTransaction, args: { key: string }): Promise<void> {
    const auth = (tx as WriteTransaction & { auth?: { userID: string } }).auth;
    await tx.put(args.key, { userID: auth?.userID ?? null, clientID: tx.clientID });
  },
};
