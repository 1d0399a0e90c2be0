import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'recovery/pull-timeout',
  spec: 'SPEC §7.2 pull (mutation recovery), §9 Mutation recovery pull timeout 5 s',
  description: 'A recovery pull for another client group, unanswered, fails after 5 s with PullTimeout.',
  skip:
    'the public Reflect API offers no way to start a mutation-recovery pull (Connection.pull exists internally, but nothing public reaches it and the client never starts one on its own), so a scripted server cannot provoke one',
  steps: [],
};

export default scenario;
