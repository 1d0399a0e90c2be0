import { RECONNECT_JITTER_MAX_MS } from '../../../src/connection/backoff';
import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'push/resend-unacknowledged',
  spec: 'PROTOCOL push (after a reconnect the client re-sends every mutation the server has not acknowledged)',
  description: 'Three mutations pushed, the first acknowledged; after the socket drops the client reconnects with lmid=1 and re-sends exactly 2 and 3.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'mutate', name: 'increment', args: { key: 'n', delta: 1 } },
    { step: 'mutate', name: 'increment', args: { key: 'n', delta: 10 } },
    { step: 'mutate', name: 'increment', args: { key: 'n', delta: 100 } },
    { step: 'expectPush', ids: [1, 2, 3] },
    { step: 'send', message: ['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: { $clientID: 1 }, patch: [{ op: 'put', key: 'n', value: 1 }], requestID: 'r1' }] },
    { step: 'expectClient', pendingMutationCount: 2 },
    { step: 'expectState', state: { n: 111 } },
    { step: 'dropSocket' },
    { step: 'expectConnect', within: RECONNECT_JITTER_MAX_MS, params: { baseCookie: '1', lmid: '1' } },
    { step: 'sendConnected' },
    { step: 'expectPush', ids: [2, 3], mutations: [{ name: 'increment', args: { key: 'n', delta: 10 } }, { name: 'increment', args: { key: 'n', delta: 100 } }] },
  ],
};

export default scenario;
