import { RECONNECT_JITTER_MAX_MS } from '../../../src/connection/backoff';
import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'push/acknowledged-dropped',
  spec: 'PROTOCOL lastMutationIDChanges (the client drops its pending mutations up to those ids)',
  description: 'A poke acknowledging every pushed mutation empties the pending list: after a reconnect nothing is re-sent, and the next mutation is pushed alone.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'mutate', name: 'put', args: { key: 'a', value: 1 } },
    { step: 'mutate', name: 'put', args: { key: 'b', value: 2 } },
    { step: 'expectPush', ids: [1, 2] },
    {
      step: 'send',
      message: ['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: { $clientID: 2 }, patch: [{ op: 'put', key: 'a', value: 1 }, { op: 'put', key: 'b', value: 2 }], requestID: 'r1' }],
    },
    { step: 'expectClient', pendingMutationCount: 0 },
    { step: 'dropSocket' },
    { step: 'expectConnect', within: RECONNECT_JITTER_MAX_MS, params: { lmid: '2' }, note: 'a drop after connected: reconnect within a second' },
    { step: 'sendConnected' },
    { step: 'expectNoFrame', forMs: 1000, note: 'acknowledged mutations are not re-sent' },
    { step: 'mutate', name: 'put', args: { key: 'c', value: 3 } },
    { step: 'expectPush', ids: [3] },
    { step: 'expectState', state: { a: 1, b: 2, c: 3 } },
  ],
};

export default scenario;
