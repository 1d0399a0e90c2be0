import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'auth/consecutive-back-off',
  spec: 'SPEC §4, §6 (refresh the token once and retry); issue 4 ("retry at once; consecutive auth failures then go through the back-off")',
  description:
    'Three Unauthorized answers in a row: the first retry comes at once with a fresh token; the following ones, each with a fresh token, wait out the back-off (5 s, then 10 s) so a server that keeps refusing is not hammered.',
  steps: [
    { step: 'expectConnect', at: 0, protocol: 'token-1' },
    { step: 'sendError', kind: 'Unauthorized' },
    { step: 'expectConnect', at: 0, protocol: 'token-2' },
    { step: 'sendError', kind: 'Unauthorized' },
    { step: 'expectConnect', at: 5000, protocol: 'token-3' },
    { step: 'sendError', kind: 'Unauthorized' },
    { step: 'expectConnect', at: 15000, protocol: 'token-4' },
  ],
};

export default scenario;
