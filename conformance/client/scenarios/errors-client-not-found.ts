import { RECONNECT_BACKOFF_MAX_MS } from '../../../protocol/constants';
import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'errors/client-not-found',
  spec: 'SPEC §8 (ClientStateNotFound → client-state-not-found callback; a group unknown on the server is disabled)',
  description: 'ClientNotFound calls onClientStateNotFound once and the client stops connecting.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'sendError', kind: 'ClientNotFound', message: 'Client group $clientGroupID is unknown on server' },
    { step: 'expectDisconnect', at: 0 },
    { step: 'expectCallback', name: 'onClientStateNotFound', count: 1 },
    { step: 'expectNoConnect', forMs: 10 * RECONNECT_BACKOFF_MAX_MS },
    { step: 'expectCallback', name: 'onUpdateNeeded', count: 0 },
  ],
};

export default scenario;
