import { Type } from '@sinclair/typebox';

/** A room version: an integer bumped by each processed batch of mutations. */
export const Cookie = Type.Integer({ minimum: 0, description: 'A room version (integer).' });

/** A cookie, or null for "before any state". */
export const NullableCookie = Type.Unsafe<number | null>({
  type: ['integer', 'null'],
  minimum: 0,
  description: 'A room version, or null before any state.',
});

/** Mutation ids are per client, start at 1 and are contiguous. */
export const MutationID = Type.Integer({ minimum: 1, description: 'A mutation id (per client, from 1).' });

/** A last-processed mutation id: 0 when none was processed. */
export const LastMutationID = Type.Integer({ minimum: 0, description: 'A last processed mutation id (0 = none).' });

/** Map of client id to its new last-processed mutation id. */
export const LastMutationIDChanges = Type.Record(Type.String(), LastMutationID, {
  description: 'For clients of the receiving client group only: client id → last processed mutation id.',
});

export const ClientID = Type.String({ minLength: 1, description: 'A client id.' });
export const ClientGroupID = Type.String({ minLength: 1, description: 'A client group id.' });
export const RequestID = Type.String({ description: 'An id correlating a request with its answer and logs.' });
/** Milliseconds, possibly fractional (performance.now() or epoch). */
export const Timestamp = Type.Number({ description: 'A time in milliseconds.' });
