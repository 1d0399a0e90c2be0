import { PING_INTERVAL_MS, PONG_DEADLINE_MS } from '../../../protocol/constants';
import { RECONNECT_JITTER_MAX_MS } from '../../../src/connection/backoff';
import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'ping/quiet-socket',
  spec: 'SPEC §4 (pings while connected), §9 Ping interval 5 s, Pong deadline 2 s',
  description: 'A ping after 5 s of quiet; a pong restarts the quiet period; an unanswered ping disconnects 2 s later, and the client reconnects within a second (a lost connection, not an error).',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'expectPing', at: PING_INTERVAL_MS },
    { step: 'send', message: ['pong', {}] },
    { step: 'expectPing', at: 2 * PING_INTERVAL_MS },
    { step: 'expectDisconnect', at: 2 * PING_INTERVAL_MS + PONG_DEADLINE_MS, note: 'no pong' },
    { step: 'expectClient', online: false },
    { step: 'expectConnect', within: RECONNECT_JITTER_MAX_MS },
  ],
};

export default scenario;
