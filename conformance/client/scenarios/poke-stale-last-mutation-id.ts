import { RECONNECT_JITTER_MAX_MS } from '../../../src/connection/backoff';
import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'poke/stale-last-mutation-id',
  spec: "PROTOCOL lastMutationIDChanges ('Received lastMutationID … is < than last snapshot': a lower value is ignored)",
  description: 'A poke announcing a lower last mutation id than the client has does not bring acknowledged mutations back: after a reconnect only the unacknowledged one is re-sent.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'mutate', name: 'put', args: { key: 'a', value: 1 } },
    { step: 'mutate', name: 'put', args: { key: 'b', value: 2 } },
    { step: 'mutate', name: 'put', args: { key: 'c', value: 3 } },
    { step: 'expectPush', ids: [1, 2, 3] },
    { step: 'send', message: ['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: { $clientID: 2 }, patch: [{ op: 'put', key: 'a', value: 1 }, { op: 'put', key: 'b', value: 2 }], requestID: 'r1' }] },
    { step: 'expectClient', pendingMutationCount: 1 },
    { step: 'send', message: ['poke', { baseCookie: 1, cookie: 2, lastMutationIDChanges: { $clientID: 1 }, patch: [], requestID: 'r2' }] },
    { step: 'expectClient', pendingMutationCount: 1, connection: 'connected' },
    { step: 'expectState', state: { a: 1, b: 2, c: 3 } },
    { step: 'dropSocket' },
    { step: 'expectConnect', within: RECONNECT_JITTER_MAX_MS, params: { baseCookie: '2', lmid: '2' } },
    { step: 'sendConnected' },
    { step: 'expectPush', ids: [3], note: 'mutations 1 and 2 stay acknowledged' },
  ],
};

export default scenario;
