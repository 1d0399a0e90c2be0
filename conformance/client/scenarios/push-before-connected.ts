import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'push/before-connected',
  spec: 'SPEC §4 Pushing (offline-first)',
  description: 'Mutations made while connecting apply locally at once and are pushed, in order, right after connected.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'mutate', name: 'put', args: { key: 'x', value: 'local' } },
    { step: 'mutate', name: 'increment', args: { key: 'n', delta: 1 } },
    { step: 'expectNoFrame', forMs: 0, note: 'nothing is pushed before connected' },
    { step: 'expectState', state: { x: 'local', n: 1 } },
    { step: 'sendConnected' },
    { step: 'expectPush', ids: [1, 2] },
  ],
};

export default scenario;
