import { Type, type Static } from '@sinclair/typebox';
import { PUSH_VERSION } from './constants';
import { Mutation } from './mutation';
import { ClientGroupID, NullableCookie, RequestID, Timestamp } from './primitives';

// Upstream messages (client → server) are validated strictly: no extra fields.

export const PingBody = Type.Object({}, { additionalProperties: false });
export const PingMessage = Type.Tuple([Type.Literal('ping'), PingBody], { $id: 'PingMessage', title: 'PingMessage' });
export type PingMessage = Static<typeof PingMessage>;

export const PushBody = Type.Object(
  {
    timestamp: Timestamp,
    clientGroupID: ClientGroupID,
    mutations: Type.Array(Mutation),
    pushVersion: Type.Literal(PUSH_VERSION),
    schemaVersion: Type.String(),
    requestID: RequestID,
  },
  { $id: 'PushBody', title: 'PushBody', additionalProperties: false },
);
export type PushBody = Static<typeof PushBody>;
export const PushMessage = Type.Tuple([Type.Literal('push'), PushBody], { $id: 'PushMessage', title: 'PushMessage' });
export type PushMessage = Static<typeof PushMessage>;

/** A pull, used only for mutation recovery of another client group. */
export const PullRequestBody = Type.Object(
  { clientGroupID: ClientGroupID, cookie: NullableCookie, requestID: RequestID },
  { $id: 'PullRequestBody', title: 'PullRequestBody', additionalProperties: false },
);
export type PullRequestBody = Static<typeof PullRequestBody>;
export const PullRequestMessage = Type.Tuple([Type.Literal('pull'), PullRequestBody], {
  $id: 'PullRequestMessage',
  title: 'PullRequestMessage',
});
export type PullRequestMessage = Static<typeof PullRequestMessage>;

export type Upstream = PingMessage | PushMessage | PullRequestMessage;
export type UpstreamName = Upstream[0];
