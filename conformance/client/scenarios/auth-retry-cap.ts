import { MAX_REAUTH_RETRIES, RECONNECT_BACKOFF_MAX_MS } from '../../../protocol/constants';
import type { Scenario, Step } from '../scenario';

/** Each retry may come at once or after a back-off; SPEC fixes only the count and the fresh token. */
const RETRY_WITHIN_MS = RECONNECT_BACKOFF_MAX_MS;
const SPEC = 'SPEC §6 (up to 8 reauthentication retries), §9 Reauthentication retries';

const retries: Step[] = Array.from({ length: MAX_REAUTH_RETRIES }, (_, i): Step[] => [
  { step: 'expectConnect', within: RETRY_WITHIN_MS, protocol: `token-${i + 2}`, note: `re-authentication retry ${i + 1}` },
  { step: 'sendError', kind: 'Unauthorized' },
]).flat();

/** A server that refuses every token, until the client stops. */
const untilStopped: Step[] = [
  { step: 'expectConnect', at: 0, protocol: 'token-1' },
  { step: 'sendError', kind: 'Unauthorized' },
  ...retries,
  { step: 'expectNoConnect', forMs: 10 * RECONNECT_BACKOFF_MAX_MS, note: 'stopped after the cap' },
  { step: 'expectAuthCalls', count: MAX_REAUTH_RETRIES + 1 },
  { step: 'expectClient', online: false, connection: 'disconnected' },
];

const cap: Scenario = {
  name: 'auth/retry-cap',
  spec: SPEC,
  description: 'A server that refuses every token: 8 retries, each with a fresh token, then the client stops.',
  steps: untilStopped,
};

const thenReconnect: Scenario = {
  name: 'auth/retry-cap-then-reconnect',
  spec: `${SPEC}; the public reconnect()`,
  description: 'After the 8 refused retries, reconnect() resumes with a fresh token at once.',
  needs: ['reconnect'],
  steps: [
    ...untilStopped,
    { step: 'reconnect' },
    { step: 'expectConnect', within: 0, protocol: `token-${MAX_REAUTH_RETRIES + 2}` },
    { step: 'sendConnected' },
    { step: 'expectClient', online: true },
  ],
};

export default [cap, thenReconnect];
