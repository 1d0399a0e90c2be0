import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'push/order-and-resume',
  spec: 'SPEC §4 Pushing; PROTOCOL push',
  description: 'Mutations are pushed in id order, each resuming after the last one already sent on the socket (one or several per frame).',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'mutate', name: 'put', args: { key: 'a', value: 1 } },
    { step: 'mutate', name: 'increment', args: { key: 'n', delta: 2 } },
    { step: 'mutate', name: 'del', args: { key: 'a' } },
    {
      step: 'expectPush',
      ids: [1, 2, 3],
      mutations: [
        { name: 'put', args: { key: 'a', value: 1 } },
        { name: 'increment', args: { key: 'n', delta: 2 } },
        { name: 'del', args: { key: 'a' } },
      ],
    },
    { step: 'mutate', name: 'put', args: { key: 'b', value: true } },
    { step: 'expectPush', ids: [4], note: 'only the new mutation: sending resumes after the last one sent' },
    { step: 'expectState', state: { n: 2, b: true } },
    { step: 'expectClient', pendingMutationCount: 4 },
  ],
};

export default scenario;
