import { CONNECT_TIMEOUT_MS, RECONNECT_BACKOFF_INITIAL_MS } from '../../../protocol/constants';
import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'connect/timeout-pending-upgrade',
  spec: 'SPEC §9 Connect timeout 10 s',
  description: 'An upgrade that never completes times out at 10 s too.',
  steps: [
    { step: 'expectConnect', at: 0, accept: false },
    { step: 'expectDisconnect', at: CONNECT_TIMEOUT_MS },
    { step: 'expectConnect', at: CONNECT_TIMEOUT_MS + RECONNECT_BACKOFF_INITIAL_MS },
  ],
};

export default scenario;
