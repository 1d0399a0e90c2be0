import { RECONNECT_JITTER_MAX_MS } from '../../../src/connection/backoff';
import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'poke/rebase',
  spec: 'PROTOCOL lastMutationIDChanges (the rest is replayed on top of the new server state)',
  description: "Another client's change arrives while two own increments are pending; one is acknowledged, the other is replayed on the new server state and is the only one re-sent after a reconnect.",
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'mutate', name: 'increment', args: { key: 'n', delta: 1 } },
    { step: 'mutate', name: 'increment', args: { key: 'n', delta: 2 } },
    { step: 'expectPush', ids: [1, 2] },
    { step: 'send', message: ['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 'n', value: 100 }, { op: 'put', key: 'other', value: 'theirs' }], requestID: 'r1' }], note: "another client's change, nothing of ours yet" },
    { step: 'expectState', state: { n: 103, other: 'theirs' } },
    { step: 'send', message: ['poke', { baseCookie: 1, cookie: 2, lastMutationIDChanges: { $clientID: 1 }, patch: [{ op: 'put', key: 'n', value: 101 }], requestID: 'r2' }] },
    { step: 'expectState', state: { n: 103, other: 'theirs' } },
    { step: 'expectClient', pendingMutationCount: 1 },
    { step: 'dropSocket' },
    { step: 'expectConnect', within: RECONNECT_JITTER_MAX_MS, params: { baseCookie: '2', lmid: '1' } },
    { step: 'sendConnected' },
    { step: 'expectPush', ids: [2], note: 'the acknowledged mutation is gone, the other one is still pending' },
  ],
};

export default scenario;
