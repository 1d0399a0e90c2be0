import { HIDDEN_DISCONNECT_DELAY_MS, RECONNECT_BACKOFF_MAX_MS } from '../../../protocol/constants';
import type { Scenario } from '../scenario';

const HIDDEN_AT_MS = 1000;

const scenario: Scenario = {
  name: 'visibility/hidden-disconnects',
  spec: 'SPEC §4 (hidden 5 s → disconnected; reconnects when visible again), §9 Hidden-page disconnect delay',
  description: 'The page goes hidden at 1 s: the client disconnects at 6 s, does not reconnect while hidden, and connects at once when the page is visible.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'autoPong', on: true },
    { step: 'advance', ms: HIDDEN_AT_MS },
    { step: 'setVisible', visible: false },
    { step: 'expectDisconnect', at: HIDDEN_AT_MS + HIDDEN_DISCONNECT_DELAY_MS },
    { step: 'expectClient', online: false },
    { step: 'expectNoConnect', forMs: 5 * RECONNECT_BACKOFF_MAX_MS, note: 'no back-off retries while hidden' },
    { step: 'setVisible', visible: true },
    { step: 'expectConnect', at: HIDDEN_AT_MS + HIDDEN_DISCONNECT_DELAY_MS + 5 * RECONNECT_BACKOFF_MAX_MS },
    { step: 'sendConnected' },
    { step: 'expectClient', online: true },
  ],
};

export default scenario;
