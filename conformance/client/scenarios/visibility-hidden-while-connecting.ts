import { HIDDEN_DISCONNECT_DELAY_MS } from '../../../protocol/constants';
import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'visibility/hidden-while-connecting',
  spec: 'SPEC §4 (a hidden page returns the client to disconnected), §9 Hidden-page disconnect delay',
  description: 'The page goes hidden while the server has not answered connected: the attempt ends at 5 s (before the 10 s connect timeout); visible again, the client connects at once.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'setVisible', visible: false },
    { step: 'expectDisconnect', at: HIDDEN_DISCONNECT_DELAY_MS },
    { step: 'expectNoConnect', forMs: HIDDEN_DISCONNECT_DELAY_MS },
    { step: 'setVisible', visible: true },
    { step: 'expectConnect', at: 2 * HIDDEN_DISCONNECT_DELAY_MS },
    { step: 'sendConnected' },
    { step: 'expectClient', online: true },
  ],
};

export default scenario;
