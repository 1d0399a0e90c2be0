import { RECONNECT_BACKOFF_MAX_MS } from '../../../protocol/constants';
import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'errors/version-not-supported',
  spec: "SPEC §8 (VersionNotSupported triggers the 'update needed' callback; the group is disabled)",
  description: 'VersionNotSupported calls onUpdateNeeded once; the client does not keep reconnecting.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendError', kind: 'VersionNotSupported', message: 'this server speaks v2' },
    { step: 'expectDisconnect', at: 0 },
    { step: 'expectCallback', name: 'onUpdateNeeded', count: 1 },
    { step: 'expectClient', online: false },
    { step: 'expectNoConnect', forMs: 10 * RECONNECT_BACKOFF_MAX_MS },
    { step: 'expectCallback', name: 'onClientStateNotFound', count: 0 },
  ],
};

export default scenario;
