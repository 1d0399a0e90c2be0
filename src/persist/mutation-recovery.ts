/**
 * Mutation recovery (SPEC.md §7, §8): mutations of other client groups of
 * this user and room that their own tabs never pushed — a tab of another
 * build or schema version that closed while offline — are pushed by this
 * client under their group's id over its live socket, confirmed with the
 * recovery pull (RECOVERY_PULL_TIMEOUT_MS → PullTimeout) and recorded, so
 * they are not pending any more. A group the server does not know is
 * disabled ('Client group {id} is unknown on server'); one whose version the
 * server does not support is disabled and the app is told an update is needed.
 */
import type { PendingMutation } from '../sync/server-update';
import type { RecoverableGroup, RecoveryRound } from './recoverable-groups';

/** The live socket as recovery uses it. */
export interface RecoveryChannel {
  readonly connected: boolean;
  /** Sends the mutations (in as many push frames as the limits need) under another group's id. Throws when not connected. */
  push(clientGroupID: string, schemaVersion: string, mutations: readonly PendingMutation[]): void;
  /** The recovery pull. Rejects with an error whose `kind` says why (PullTimeout, ClientNotFound, VersionNotSupported, …). */
  pull(clientGroupID: string, cookie: number | null): Promise<{ readonly lastMutationIDChanges: Readonly<Record<string, number>> }>;
}

export interface RecoveryLogger {
  error(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
}

export type GroupOutcome =
  /** Pushed and confirmed; what the server acknowledged is recorded. */
  | 'recovered'
  /** The server does not know the group: disabled. */
  | 'unknown-group'
  /** The server does not support the group's version: disabled, update needed. */
  | 'version-not-supported'
  /** The socket failed or the pull timed out: tried again next round. */
  | 'interrupted';

export async function recoverGroup(channel: RecoveryChannel, group: RecoverableGroup, logger: RecoveryLogger): Promise<GroupOutcome> {
  try {
    channel.push(group.clientGroupID, group.schemaVersion, group.mutations);
    const answer = await channel.pull(group.clientGroupID, group.cookie);
    await group.recordAcks(answer.lastMutationIDChanges);
    const acked = group.mutations.filter((m) => m.id <= (answer.lastMutationIDChanges[m.clientID] ?? 0)).length;
    logger.info(`Recovered ${acked} of ${group.mutations.length} mutation(s) of client group ${group.clientGroupID} (${group.store})`);
    return 'recovered';
  } catch (error) {
    const kind = (error as { kind?: unknown } | null)?.kind;
    if (kind === 'ClientNotFound') {
      await group.disable();
      logger.error(`Client group ${group.clientGroupID} is unknown on server`);
      return 'unknown-group';
    }
    if (kind === 'VersionNotSupported') {
      await group.disable();
      logger.error(`The server does not support schema version "${group.schemaVersion}" of client group ${group.clientGroupID}; its mutations are not recovered`);
      return 'version-not-supported';
    }
    logger.info(`Mutation recovery of client group ${group.clientGroupID} was interrupted; it is tried again later`, error);
    return 'interrupted';
  }
}

/** Recovers every group of a round, one after another; stops at the first interruption (the socket is gone). */
export async function recoverRound(
  channel: RecoveryChannel,
  round: RecoveryRound,
  logger: RecoveryLogger,
  onVersionNotSupported: () => void,
): Promise<GroupOutcome[]> {
  const outcomes: GroupOutcome[] = [];
  for (const group of round.groups) {
    if (!channel.connected) break;
    const outcome = await recoverGroup(channel, group, logger);
    outcomes.push(outcome);
    if (outcome === 'version-not-supported') onVersionNotSupported();
    if (outcome === 'interrupted' || outcome === 'version-not-supported') break;
  }
  return outcomes;
}
