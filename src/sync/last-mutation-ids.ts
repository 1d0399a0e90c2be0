import type { StoreLogger } from '../db/logger';

/**
 * The acknowledged ids after an update: the old ones with the changes applied.
 * A change lower than what is already known is ignored (and logged).
 */
export function mergeLastMutationIDs(
  current: Readonly<Record<string, number>>,
  changes: Readonly<Record<string, number>>,
  logger: StoreLogger,
): Record<string, number> {
  const out: Record<string, number> = { ...current };
  for (const [clientID, id] of Object.entries(changes)) {
    const known = current[clientID] ?? 0;
    if (id < known) {
      logger.error(
        `Received lastMutationID ${id} is < than last snapshot lastMutationID ${known} for client ${clientID}; ignoring client update`,
      );
      continue;
    }
    out[clientID] = id;
  }
  return out;
}
