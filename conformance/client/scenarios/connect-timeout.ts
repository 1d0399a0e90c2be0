import { CONNECT_TIMEOUT_MS, RECONNECT_BACKOFF_INITIAL_MS } from '../../../protocol/constants';
import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'connect/timeout',
  spec: 'SPEC §9 Connect timeout 10 s',
  description: 'A server that accepts the socket but never sends connected: the client gives up at 10 s and retries after the back-off.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'expectDisconnect', at: CONNECT_TIMEOUT_MS },
    { step: 'expectClient', online: false },
    { step: 'expectConnect', at: CONNECT_TIMEOUT_MS + RECONNECT_BACKOFF_INITIAL_MS },
    { step: 'sendConnected' },
    { step: 'expectClient', online: true },
  ],
};

export default scenario;
