import { RECONNECT_BACKOFF_MAX_MS } from '../../../protocol/constants';
import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'app/close',
  spec: 'SPEC §4 (close returns the client to disconnected); the public close()',
  description: 'close() closes the socket, the client goes offline and never connects again.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'expectClient', online: true },
    { step: 'close' },
    { step: 'expectDisconnect', within: 0 },
    { step: 'expectClient', online: false, connection: 'disconnected' },
    { step: 'expectNoConnect', forMs: 10 * RECONNECT_BACKOFF_MAX_MS },
  ],
};

export default scenario;
