import { PING_INTERVAL_MS } from '../../../protocol/constants';
import type { Scenario } from '../scenario';

const QUIET_BEFORE_POKE_MS = 3000;

const scenario: Scenario = {
  name: 'ping/traffic-delays-ping',
  spec: 'PROTOCOL ping (sent when the socket has been quiet for the ping interval)',
  description: 'A poke is traffic: the ping comes 5 s after it, not 5 s after connected.',
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'expectNoFrame', forMs: QUIET_BEFORE_POKE_MS },
    { step: 'send', message: ['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: {}, patch: [], requestID: 'r1' }] },
    { step: 'expectPing', at: QUIET_BEFORE_POKE_MS + PING_INTERVAL_MS },
  ],
};

export default scenario;
