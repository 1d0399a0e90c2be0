import { PUSH_MAX_FRAME_BYTES, PUSH_MAX_MUTATIONS } from '../../../src/connection/push-limits';
import type { Scenario } from '../scenario';

const SPEC = 'protocol/README.md (Limits every server must accept); PROTOCOL push (several mutations in one frame are valid)';
/** More mutations than two full pushes. */
const MANY = 2 * PUSH_MAX_MUTATIONS + 200;
/** Values large enough that a few of them fill a frame. */
const LARGE_VALUE = 'x'.repeat(Math.floor(PUSH_MAX_FRAME_BYTES / 5));
const LARGE_COUNT = 12;

const ids = (count: number) => Array.from({ length: count }, (_, i) => i + 1);

/** The server refuses, as a server with exactly the documented limits would. */
const STRICT_SERVER = { step: 'serverLimits', maxMutationsPerPush: PUSH_MAX_MUTATIONS, maxFrameBytes: PUSH_MAX_FRAME_BYTES } as const;

const byCount: Scenario = {
  name: 'push/split-to-limits-mutation-count',
  spec: SPEC,
  description: `${MANY} mutations made before connected; the server refuses any push over ${PUSH_MAX_MUTATIONS} mutations (InvalidPush, close): the client splits its pushes and the backlog drains, each mutation once.`,
  steps: [
    STRICT_SERVER,
    { step: 'mutate', name: 'increment', args: { key: 'n', delta: 1 }, times: MANY },
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'expectPush', ids: ids(MANY) },
    { step: 'send', message: ['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: { $clientID: MANY }, patch: [{ op: 'put', key: 'n', value: MANY }], requestID: 'r1' }] },
    { step: 'expectClient', online: true, pendingMutationCount: 0, connection: 'connected' },
    { step: 'expectState', state: { n: MANY } },
  ],
};

const byBytes: Scenario = {
  name: 'push/split-to-limits-frame-bytes',
  spec: SPEC,
  description: `${LARGE_COUNT} mutations of ${LARGE_VALUE.length} bytes each made before connected; the server refuses any push frame over ${PUSH_MAX_FRAME_BYTES} bytes (InvalidPush, close): the client splits its pushes by size and every mutation gets through once.`,
  steps: [
    STRICT_SERVER,
    { step: 'mutate', name: 'put', args: { key: 'big', value: LARGE_VALUE }, times: LARGE_COUNT },
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'expectPush', ids: ids(LARGE_COUNT) },
    { step: 'send', message: ['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: { $clientID: LARGE_COUNT }, patch: [{ op: 'put', key: 'big', value: LARGE_VALUE }], requestID: 'r1' }] },
    { step: 'expectClient', online: true, pendingMutationCount: 0, connection: 'connected' },
  ],
};

export default [byCount, byBytes];
