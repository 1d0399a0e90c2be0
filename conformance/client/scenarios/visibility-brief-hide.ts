import { HIDDEN_DISCONNECT_DELAY_MS } from '../../../protocol/constants';
import type { Scenario } from '../scenario';

const BRIEFLY_MS = HIDDEN_DISCONNECT_DELAY_MS - 1000;

const scenario: Scenario = {
  name: 'visibility/brief-hide-keeps-socket',
  spec: 'SPEC §4 (only a page hidden for 5 s disconnects)',
  description: 'Hidden for 4 s, then visible: the socket stays open.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'autoPong', on: true },
    { step: 'setVisible', visible: false },
    { step: 'advance', ms: BRIEFLY_MS },
    { step: 'setVisible', visible: true },
    { step: 'advance', ms: 2 * HIDDEN_DISCONNECT_DELAY_MS },
    { step: 'expectClient', online: true, connection: 'connected' },
    { step: 'expectNoConnect', forMs: 0 },
  ],
};

export default scenario;
