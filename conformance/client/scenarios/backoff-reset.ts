import { RECONNECT_BACKOFF_INITIAL_MS } from '../../../protocol/constants';
import { RECONNECT_JITTER_MAX_MS } from '../../../src/connection/backoff';
import type { Scenario } from '../scenario';

const SECOND = 1000;

const scenario: Scenario = {
  name: 'backoff/reset-after-connect',
  spec: 'SPEC §9 Reconnect back-off (per consecutive error, reset by a successful connect)',
  description:
    'Two failures (retries at 5 and 15 s), then a successful connect. After the next drop the client reconnects within a second; when that attempt fails it waits 5 s again, not 20.',
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
    { step: 'expectConnect', within: RECONNECT_JITTER_MAX_MS },
    { step: 'dropSocket', note: 'the attempt fails: the first error since the connect' },
    { step: 'expectConnect', after: RECONNECT_BACKOFF_INITIAL_MS },
  ],
};

export default scenario;
