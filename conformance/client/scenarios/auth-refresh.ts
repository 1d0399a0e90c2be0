import type { Scenario, Step } from '../scenario';

const authRefresh = (kind: 'Unauthorized' | 'AuthInvalidated'): Scenario => ({
  name: `auth/refresh-on-${kind}`,
  spec: 'SPEC §4 (after an auth error the client refreshes the token once and retries), §6, §8',
  description: `${kind} (before or after connected) makes the client fetch a new token and connect again at once with it.`,
  steps: [
    { step: 'expectConnect', at: 0, protocol: 'token-1' },
    { step: 'sendError', kind },
    { step: 'expectDisconnect', at: 0 },
    { step: 'expectConnect', at: 0, protocol: 'token-2', note: 'a fresh token, no back-off' },
    { step: 'sendConnected' },
    { step: 'expectClient', online: true },
    { step: 'advance', ms: 1000 },
    { step: 'sendError', kind, note: 'while connected' },
    { step: 'expectDisconnect', at: 1000 },
    { step: 'expectConnect', at: 1000, protocol: 'token-3' },
    { step: 'expectAuthCalls', count: 3 },
  ] satisfies Step[],
});

export default [authRefresh('Unauthorized'), authRefresh('AuthInvalidated')];
