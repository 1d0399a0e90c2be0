import { RECONNECT_BACKOFF_MAX_MS } from '../../../protocol/constants';
import type { Scenario } from '../scenario';

const OFFLINE_FOR_MS = 10 * RECONNECT_BACKOFF_MAX_MS;

const scenario: Scenario = {
  name: 'app/disconnect-reconnect',
  spec: 'SPEC §4 (offline-first: mutations apply locally); the public disconnect()/reconnect()',
  description: 'disconnect() closes the socket and keeps the client offline; mutations still apply locally; reconnect() connects at once and pushes them.',
  needs: ['disconnect', 'reconnect'],
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'disconnect' },
    { step: 'expectDisconnect', at: 0 },
    { step: 'mutate', name: 'put', args: { key: 'offline', value: 1 } },
    { step: 'expectState', state: { offline: 1 } },
    { step: 'expectNoConnect', forMs: OFFLINE_FOR_MS },
    { step: 'reconnect' },
    { step: 'expectConnect', at: OFFLINE_FOR_MS },
    { step: 'sendConnected' },
    { step: 'expectPush', ids: [1] },
  ],
};

export default scenario;
