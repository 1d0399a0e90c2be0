import type { Scenario } from '../scenario';

const HIDDEN_FOR_MS = 30_000;

const scenario: Scenario = {
  name: 'visibility/start-hidden',
  spec: 'SPEC §4 (disconnected becomes connecting once the page is visible)',
  description: 'A client created in a hidden page does not connect until the page is visible.',
  client: { visible: false },
  steps: [
    { step: 'expectNoConnect', forMs: HIDDEN_FOR_MS },
    { step: 'setVisible', visible: true },
    { step: 'expectConnect', at: HIDDEN_FOR_MS },
  ],
};

export default scenario;
