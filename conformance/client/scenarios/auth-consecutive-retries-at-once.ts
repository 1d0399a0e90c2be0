import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'auth/consecutive-retries-at-once',
  spec: 'PROTOCOL Errors ("Auth errors … make it fetch a fresh token and retry at once; everything else goes through the back-off")',
  description: 'Three Unauthorized answers in a row: each retry comes at once with a fresh token, none waits out a back-off.',
  steps: [
    { step: 'expectConnect', at: 0, protocol: 'token-1' },
    { step: 'sendError', kind: 'Unauthorized' },
    { step: 'expectConnect', at: 0, protocol: 'token-2' },
    { step: 'sendError', kind: 'Unauthorized' },
    { step: 'expectConnect', at: 0, protocol: 'token-3' },
    { step: 'sendError', kind: 'Unauthorized' },
    { step: 'expectConnect', at: 0, protocol: 'token-4' },
  ],
};

export default scenario;
