/** The server error codes of SPEC.md §8, exactly these. Plain data: safe to import in the browser. */
export const ERROR_KINDS = [
  'AuthInvalidated',
  'ClientNotFound',
  'ConnectTimeout',
  'InvalidConnectionRequest',
  'InvalidMessage',
  'InvalidPush',
  'PingTimeout',
  'PullTimeout',
  'RoomClosed',
  'RoomNotFound',
  'Unauthorized',
  'UnexpectedBaseCookie',
  'UnexpectedLastMutationID',
  'VersionNotSupported',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

/** Kinds only the client uses, as disconnect reasons; a server never sends them. */
export const CLIENT_ONLY_ERROR_KINDS: readonly ErrorKind[] = ['ConnectTimeout', 'PingTimeout', 'PullTimeout'];
