import { RECONNECT_BACKOFF_INITIAL_MS } from '../../../protocol/constants';
import type { ErrorKind } from '../../../src/protocol';
import type { Scenario } from '../scenario';

/** Every server error kind that is neither an auth error nor one with its own callback. */
const BACKOFF_KINDS: readonly ErrorKind[] = [
  'ConnectTimeout',
  'InvalidConnectionRequest',
  'InvalidMessage',
  'InvalidPush',
  'PingTimeout',
  'PullTimeout',
  'RoomClosed',
  'RoomNotFound',
  'UnexpectedBaseCookie',
  'UnexpectedLastMutationID',
];

const whileConnecting = (kind: ErrorKind): Scenario => ({
  name: `errors/${kind}-while-connecting`,
  spec: 'SPEC §8 (an error frame rejects the pending connect and disconnects); PROTOCOL Errors (back-off)',
  description: `${kind} before connected: the client closes the socket, stays offline and retries after the back-off.`,
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendError', kind, message: `scripted ${kind}` },
    { step: 'expectDisconnect', at: 0 },
    { step: 'expectClient', online: false },
    { step: 'expectConnect', at: RECONNECT_BACKOFF_INITIAL_MS, protocol: 'token-1', note: 'the same token: not an auth error' },
  ],
});

const whileConnected = (kind: ErrorKind): Scenario => ({
  name: `errors/${kind}-while-connected`,
  spec: 'PROTOCOL Errors (the client disconnects on every error frame; back-off)',
  description: `${kind} after connected: the client closes the socket, goes offline and retries after the back-off.`,
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'expectClient', online: true },
    { step: 'sendError', kind, message: `scripted ${kind}` },
    { step: 'expectDisconnect', at: 0 },
    { step: 'expectClient', online: false },
    { step: 'expectConnect', at: RECONNECT_BACKOFF_INITIAL_MS },
  ],
});

export default BACKOFF_KINDS.flatMap((kind) => [whileConnecting(kind), whileConnected(kind)]);
