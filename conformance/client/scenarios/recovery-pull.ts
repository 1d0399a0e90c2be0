import { RECOVERY_PULL_TIMEOUT_MS, RECONNECT_BACKOFF_MAX_MS } from '../../../protocol/constants';
import type { Scenario } from '../scenario';

const FIVE_MINUTES_MS = 5 * 60 * 1000;

const pushAndPull: Scenario = {
  name: 'recovery/push-under-other-group',
  spec: 'SPEC §7.2 pull (used for mutation recovery of another client group); PROTOCOL.md Client → server (push, pull)',
  description:
    "Once connected, the client pushes another client group's unpushed mutations under that group's id, confirms them with a recovery pull, and does not push them again.",
  needs: ['sharedLocalStore'],
  client: { orphan: { mutations: 2 } },
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'expectRecoveryPush', ids: [1, 2], within: 1000 },
    { step: 'expectPull', cookie: null, within: 1000, note: 'from the cookie the other group last saw (none)' },
    { step: 'answerPull', cookie: 1, lastMutationIDChanges: { $orphanClientID: 2 } },
    { step: 'autoPong', on: true },
    { step: 'expectNoFrame', forMs: 2 * FIVE_MINUTES_MS + 1000, note: 'the next recovery rounds find nothing left to push' },
  ],
};

const pullTimeout: Scenario = {
  name: 'recovery/pull-timeout',
  spec: 'SPEC §7.2 pull (mutation recovery), §9 Mutation recovery pull timeout 5 s, §8 PullTimeout',
  description: 'A recovery pull unanswered for 5 s fails with PullTimeout: the client drops the socket, and recovers the group again once connected again.',
  needs: ['sharedLocalStore'],
  client: { orphan: { mutations: 1 } },
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'autoPong', on: true },
    { step: 'expectRecoveryPush', ids: [1], within: 1000 },
    { step: 'expectPull', within: 1000 },
    { step: 'expectDisconnect', after: RECOVERY_PULL_TIMEOUT_MS, note: 'PullTimeout' },
    { step: 'expectConnect', within: RECONNECT_BACKOFF_MAX_MS },
    { step: 'sendConnected' },
    { step: 'expectRecoveryPush', ids: [1], within: 1000 },
    { step: 'expectPull', within: 1000 },
    { step: 'answerPull', cookie: 1, lastMutationIDChanges: { $orphanClientID: 1 } },
    { step: 'expectNoFrame', forMs: FIVE_MINUTES_MS + 1000 },
  ],
};

const unknownGroup: Scenario = {
  name: 'recovery/unknown-group-disabled',
  spec: "SPEC §8: a client group unknown on the server is disabled ('Client group {id} is unknown on server')",
  description:
    'ClientNotFound answering a recovery pull disables that group (never recovered again) and is not this client\u2019s own state: no onClientStateNotFound, and it goes on syncing.',
  needs: ['sharedLocalStore'],
  client: { orphan: { mutations: 1 } },
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'autoPong', on: true },
    { step: 'expectRecoveryPush', ids: [1], within: 1000 },
    { step: 'expectPull', within: 1000 },
    { step: 'sendError', kind: 'ClientNotFound', message: 'Client group $orphanGroupID is unknown on server' },
    { step: 'expectCallback', name: 'onClientStateNotFound', count: 0 },
    { step: 'mutate', name: 'increment', args: { key: 'mine', delta: 1 } },
    { step: 'expectPush', ids: [1], within: 1000, note: "this client's own mutation" },
    { step: 'expectNoFrame', forMs: 2 * FIVE_MINUTES_MS + 1000, note: 'the disabled group is not recovered again' },
  ],
};

export default [pushAndPull, pullTimeout, unknownGroup];
