import { RECONNECT_JITTER_MAX_MS } from '../../../src/connection/backoff';
import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'poke/out-of-order',
  spec: 'SPEC §4 Out of order; PROTOCOL Ordering rule',
  description:
    'A poke whose baseCookie is not the local cookie is dropped; the client disconnects and reconnects (after the back-off) with the cookie it has, and the catch-up poke from there applies.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'send', message: ['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 'a', value: 1 }], requestID: 'r1' }] },
    { step: 'send', message: ['poke', { baseCookie: 5, cookie: 6, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 'z', value: 'wrong' }], requestID: 'r2' }], note: 'out of order: the client has cookie 1' },
    { step: 'expectDisconnect', at: 0 },
    { step: 'expectState', state: { a: 1 } },
    { step: 'expectClient', online: false },
    { step: 'expectConnect', within: RECONNECT_JITTER_MAX_MS, params: { baseCookie: '1' }, note: 'reconnects from the cookie it has, within a second' },
    { step: 'sendConnected' },
    { step: 'send', message: ['poke', { baseCookie: 1, cookie: 6, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 'z', value: 'right' }], requestID: 'r3' }] },
    { step: 'expectState', state: { a: 1, z: 'right' } },
    { step: 'expectClient', online: true, connection: 'connected' },
  ],
};

export default scenario;
