import type { Scenario } from '../scenario';

const SECOND = 1000;

const scenario: Scenario = {
  name: 'backoff/reset-after-connect',
  spec: 'SPEC §9 Reconnect back-off (reset by a successful connect)',
  description: 'Two failures (retries at 5 and 15 s), then a successful connect: the next drop is retried after 5 s again, not 20.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'dropSocket' },
    { step: 'expectConnect', at: 5 * SECOND },
    { step: 'dropSocket', clean: true },
    { step: 'expectConnect', at: 15 * SECOND },
    { step: 'sendConnected' },
    { step: 'autoPong', on: true },
    { step: 'advance', ms: 20 * SECOND },
    { step: 'dropSocket' },
    { step: 'expectConnect', at: 40 * SECOND },
  ],
};

export default scenario;
