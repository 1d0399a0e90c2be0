import { RECONNECT_BACKOFF_INITIAL_MS } from '../../../protocol/constants';
import { RECONNECT_JITTER_MAX_MS } from '../../../src/connection/backoff';
import type { Scenario, Step } from '../scenario';

const SECOND = 1000;

/** Connected and quiet for a while (the server answers pings). */
const HEALTHY_CONNECTION: readonly Step[] = [
  { step: 'expectConnect', at: 0 },
  { step: 'sendConnected' },
  { step: 'autoPong', on: true },
  { step: 'advance', ms: 30 * SECOND },
];

const afterDrop = (clean: boolean): Scenario => ({
  name: `reconnect/at-once-after-${clean ? 'clean' : 'abrupt'}-close`,
  spec: 'SPEC §9 Reconnect back-off (per consecutive error: a drop after a connect is not one)',
  description: `A connected socket ${clean ? 'closed cleanly (a server restart: 1001)' : 'lost abruptly (a network blip)'}: the client reconnects within a second, not after the 5 s back-off.`,
  steps: [
    ...HEALTHY_CONNECTION,
    { step: 'dropSocket', clean },
    { step: 'expectClient', online: false },
    { step: 'expectConnect', within: RECONNECT_JITTER_MAX_MS, params: { baseCookie: '', lmid: '0' } },
    { step: 'sendConnected' },
    { step: 'expectClient', online: true, connection: 'connected' },
  ],
});

const serverDown: Scenario = {
  name: 'reconnect/back-off-from-the-first-failed-attempt',
  spec: 'SPEC §9 Reconnect back-off (5 s, doubled per consecutive error, capped at 60 s)',
  description: 'The server goes away and stays down: the client tries again within a second, then 5, 10 and 20 s after each failed attempt; once the server is back it connects.',
  steps: [
    ...HEALTHY_CONNECTION,
    { step: 'dropSocket', clean: true },
    { step: 'expectConnect', within: RECONNECT_JITTER_MAX_MS },
    { step: 'dropSocket', note: 'still down: the first failed attempt' },
    { step: 'expectConnect', after: RECONNECT_BACKOFF_INITIAL_MS },
    { step: 'dropSocket' },
    { step: 'expectConnect', after: 2 * RECONNECT_BACKOFF_INITIAL_MS },
    { step: 'dropSocket' },
    { step: 'expectConnect', after: 4 * RECONNECT_BACKOFF_INITIAL_MS, note: 'the server is back' },
    { step: 'sendConnected' },
    { step: 'expectClient', online: true },
  ],
};

const errorFrame: Scenario = {
  name: 'reconnect/error-frame-keeps-back-off',
  spec: 'PROTOCOL Errors (the client disconnects on every error frame; back-off)',
  description: 'An error frame after connected is the server refusing something, not a lost connection: the client waits the 5 s back-off.',
  steps: [
    ...HEALTHY_CONNECTION,
    { step: 'sendError', kind: 'RoomClosed', message: 'closed for maintenance' },
    { step: 'expectDisconnect', within: 0 },
    { step: 'expectNoConnect', forMs: RECONNECT_BACKOFF_INITIAL_MS - 1 },
    { step: 'expectConnect', after: 1 },
  ],
};

export default [afterDrop(true), afterDrop(false), serverDown, errorFrame];
