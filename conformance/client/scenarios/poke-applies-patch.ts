import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'poke/applies-patch',
  spec: 'SPEC §3 Pull / poke payload, §5 (put, del, clear); PROTOCOL poke',
  description: 'Chained pokes apply put, del and clear in order; a poke with unknown extra fields is accepted.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'send', message: ['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 'a', value: { deep: [1, 2] } }, { op: 'put', key: 'b', value: 'x' }], requestID: 'r1' }] },
    { step: 'expectState', state: { a: { deep: [1, 2] }, b: 'x' } },
    { step: 'send', message: ['poke', { baseCookie: 1, cookie: 2, lastMutationIDChanges: {}, patch: [{ op: 'del', key: 'a' }], requestID: 'r2', timestamp: 5 }] },
    { step: 'expectState', state: { b: 'x' } },
    {
      step: 'send',
      message: ['poke', { baseCookie: 2, cookie: 3, lastMutationIDChanges: {}, patch: [{ op: 'clear' }, { op: 'put', key: 'c', value: null }], requestID: 'r3', extraFieldFromANewerServer: true }],
      note: 'unknown extra fields in downstream bodies are tolerated',
    },
    { step: 'expectState', state: { c: null } },
    { step: 'expectClient', online: true, connection: 'connected', note: 'none of them made the client drop the socket' },
  ],
};

export default scenario;
