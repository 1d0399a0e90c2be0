import type { Scenario, Step } from '../scenario';

const SECOND = 1000;
/** SPEC §9: 5 s, doubled per consecutive error, capped at 60 s: attempts at 0, 5, 15, 35, 75, 135, 195 s. */
const ATTEMPTS_S = [0, 5, 15, 35, 75, 135, 195];

const scenario: Scenario = {
  name: 'backoff/golden-trace',
  spec: 'SPEC §9 Reconnect back-off; PROTOCOL Errors',
  description: 'Every attempt fails at once (abrupt close): the client retries at exactly 5, 15, 35, 75, 135 and 195 s.',
  steps: ATTEMPTS_S.flatMap((s): Step[] => [{ step: 'expectConnect', at: s * SECOND }, { step: 'dropSocket' }]),
};

export default scenario;
