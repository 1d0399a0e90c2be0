import { RECONNECT_BACKOFF_INITIAL_MS } from '../../../protocol/constants';
import type { Scenario } from '../scenario';

const HIDDEN_AT_MS = 1000;
const VISIBLE_AT_MS = 4 * RECONNECT_BACKOFF_INITIAL_MS;

const scenario: Scenario = {
  name: 'visibility/hidden-during-backoff',
  spec: 'SPEC §4 (disconnected becomes connecting once the page is visible)',
  description: 'The page is hidden while the client waits out a back-off: the retry does not connect; the client connects when the page is visible again.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'dropSocket' },
    { step: 'advance', ms: HIDDEN_AT_MS },
    { step: 'setVisible', visible: false },
    { step: 'expectNoConnect', forMs: VISIBLE_AT_MS - HIDDEN_AT_MS, note: 'the back-off ends at 5 s, but the page is hidden' },
    { step: 'setVisible', visible: true },
    { step: 'expectConnect', at: VISIBLE_AT_MS },
    { step: 'sendConnected' },
    { step: 'expectClient', online: true },
  ],
};

export default scenario;
