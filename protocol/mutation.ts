import { Type, type Static } from '@sinclair/typebox';
import { JsonAny } from './json';
import { ClientID, MutationID, Timestamp } from './primitives';

/** One mutation as pushed: SPEC.md §3 "Mutation record". Upstream, so strict. */
export const Mutation = Type.Object(
  {
    id: MutationID,
    clientID: ClientID,
    name: Type.String({ minLength: 1 }),
    args: JsonAny,
    timestamp: Timestamp,
  },
  { $id: 'Mutation', title: 'Mutation', additionalProperties: false },
);
export type Mutation = Static<typeof Mutation>;
