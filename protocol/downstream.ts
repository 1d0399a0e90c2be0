import { Type, type Static } from '@sinclair/typebox';
import { ErrorKind } from './error-kinds';
import { Patch } from './patch';
import { Cookie, LastMutationIDChanges, NullableCookie, RequestID, Timestamp } from './primitives';

// Downstream bodies (server → client) tolerate unknown extra fields, so a newer
// server does not break an older client; required fields and types are strict.

export const ConnectedBody = Type.Object(
  { wsid: Type.String(), timestamp: Type.Optional(Timestamp) },
  { $id: 'ConnectedBody', title: 'ConnectedBody' },
);
export type ConnectedBody = Static<typeof ConnectedBody>;
export const ConnectedMessage = Type.Tuple([Type.Literal('connected'), ConnectedBody], {
  $id: 'ConnectedMessage',
  title: 'ConnectedMessage',
});
export type ConnectedMessage = Static<typeof ConnectedMessage>;

export const PongBody = Type.Object({}, { $id: 'PongBody', title: 'PongBody' });
export const PongMessage = Type.Tuple([Type.Literal('pong'), PongBody], { $id: 'PongMessage', title: 'PongMessage' });
export type PongMessage = Static<typeof PongMessage>;

export const PokeBody = Type.Object(
  {
    baseCookie: NullableCookie,
    cookie: Cookie,
    lastMutationIDChanges: LastMutationIDChanges,
    patch: Patch,
    timestamp: Type.Optional(Timestamp),
    requestID: RequestID,
  },
  { $id: 'PokeBody', title: 'PokeBody' },
);
export type PokeBody = Static<typeof PokeBody>;
export const PokeMessage = Type.Tuple([Type.Literal('poke'), PokeBody], { $id: 'PokeMessage', title: 'PokeMessage' });
export type PokeMessage = Static<typeof PokeMessage>;

/** The answer to a recovery pull; it echoes the request's requestID. */
export const PullResponseBody = Type.Object(
  { cookie: Cookie, lastMutationIDChanges: LastMutationIDChanges, requestID: RequestID },
  { $id: 'PullResponseBody', title: 'PullResponseBody' },
);
export type PullResponseBody = Static<typeof PullResponseBody>;
export const PullResponseMessage = Type.Tuple([Type.Literal('pull'), PullResponseBody], {
  $id: 'PullResponseMessage',
  title: 'PullResponseMessage',
});
export type PullResponseMessage = Static<typeof PullResponseMessage>;

/** The only 3-array: ["error", kind, message]. */
export const ErrorMessage = Type.Tuple([Type.Literal('error'), ErrorKind, Type.String()], {
  $id: 'ErrorMessage',
  title: 'ErrorMessage',
});
export type ErrorMessage = Static<typeof ErrorMessage>;

export type Downstream = ConnectedMessage | PongMessage | PokeMessage | PullResponseMessage | ErrorMessage;
export type DownstreamName = Downstream[0];
