import { Type, type Static } from '@sinclair/typebox';
import { REF_COUNT_MAX } from './constants';
import { JsonAny } from './json';
import { LastMutationID, Timestamp } from './primitives';

// Records persisted by the client in its local store. Validated when read back,
// so corrupted storage becomes a typed error instead of wrong behaviour.

export const Hash = Type.String({ minLength: 1, description: 'The id of a stored chunk.' });

/** A secondary index definition. */
export const IndexDefinition = Type.Object(
  {
    prefix: Type.Optional(Type.String({ description: 'Only keys with this prefix are indexed.' })),
    jsonPointer: Type.String({ pattern: '^(/.*)?$', description: 'RFC 6901 pointer to the secondary key inside a value.' }),
    allowEmpty: Type.Optional(Type.Boolean({ description: 'Skip values where the pointer finds nothing.' })),
  },
  { $id: 'IndexDefinition', title: 'IndexDefinition', additionalProperties: false },
);
export type IndexDefinition = Static<typeof IndexDefinition>;

/** A secondary index key: no null byte (SPEC.md §5). */
export const SecondaryIndexKey = Type.String({
  $id: 'SecondaryIndexKey',
  title: 'SecondaryIndexKey',
  pattern: '^[^\\u0000]*$',
  description: 'Secondary index keys cannot contain a null byte.',
});

/** Reference count of a stored chunk (SPEC.md §5). */
export const RefCount = Type.Integer({
  $id: 'RefCount',
  title: 'RefCount',
  minimum: 0,
  maximum: REF_COUNT_MAX,
  description: 'Ref counts must be an integer from 0 to 65535.',
});

/** An immutable stored chunk. */
export const ChunkRecord = Type.Object(
  { hash: Hash, data: JsonAny, refs: Type.Array(Hash) },
  { $id: 'ChunkRecord', title: 'ChunkRecord', additionalProperties: false },
);
export type ChunkRecord = Static<typeof ChunkRecord>;

const MutationIDs = Type.Record(Type.String(), LastMutationID);

/** SPEC.md §3 "Client group record". */
export const ClientGroupRecord = Type.Object(
  {
    headHash: Hash,
    mutatorNames: Type.Array(Type.String()),
    indexes: Type.Record(Type.String(), IndexDefinition),
    mutationIDs: MutationIDs,
    lastServerAckdMutationIDs: MutationIDs,
    disabled: Type.Boolean(),
  },
  { $id: 'ClientGroupRecord', title: 'ClientGroupRecord', additionalProperties: false },
);
export type ClientGroupRecord = Static<typeof ClientGroupRecord>;

/** SPEC.md §3 "Client record". */
export const ClientRecord = Type.Object(
  {
    heartbeatTimestampMs: Timestamp,
    headHash: Hash,
    clientGroupID: Type.String({ minLength: 1 }),
    // One `type` list, not anyOf [Hash, null]: the same values pass, and the
    // generated check is a type test instead of anyOf's error collecting.
    tempRefreshHash: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      minLength: 1,
      description: 'The id of a stored chunk, or null.',
    }),
  },
  { $id: 'ClientRecord', title: 'ClientRecord', additionalProperties: false },
);
export type ClientRecord = Static<typeof ClientRecord>;
