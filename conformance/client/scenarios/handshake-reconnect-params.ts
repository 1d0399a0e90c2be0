import { RECONNECT_JITTER_MAX_MS } from '../../../src/connection/backoff';
import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'handshake/reconnect-params',
  spec: 'SPEC §7.1; PROTOCOL Connect (baseCookie, lmid, fresh wsid)',
  description:
    'After applying a poke (cookie 1, own mutations acknowledged up to 2) a reconnecting client presents baseCookie=1, lmid=2 and a new wsid (the engine rejects a reused one).',
  steps: [
    { step: 'expectConnect', at: 0, params: { baseCookie: '', lmid: '0' } },
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
    { step: 'expectClient', online: false },
    { step: 'expectConnect', within: RECONNECT_JITTER_MAX_MS, params: { baseCookie: '1', lmid: '2', ts: '$openedAt' }, note: 'ts is the injected monotonic clock' },
    { step: 'sendConnected' },
    { step: 'expectClient', online: true },
  ],
};

export default scenario;
