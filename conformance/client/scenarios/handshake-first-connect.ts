import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'handshake/first-connect',
  spec: 'SPEC §7.1, §4 (connecting → connected, online flag); PROTOCOL Connect',
  description:
    'A fresh client connects at once to {socketOrigin}/api/sync/v1/connect with every query parameter (baseCookie empty, lmid 0, a 21-character wsid) and its token, URL-encoded, as the subprotocol; connected makes it online.',
  client: { authPrefix: 'secret token (1)' },
  steps: [
    { step: 'expectClient', online: false },
    { step: 'expectConnect', at: 0, params: { roomID: 'conformance-room', baseCookie: '', lmid: '0' }, protocol: 'secret%20token%20%281%29-1' },
    { step: 'expectClient', online: false, connection: 'connecting' },
    { step: 'sendConnected' },
    { step: 'expectClient', online: true, connection: 'connected' },
    { step: 'expectAuthCalls', count: 1 },
  ],
};

export default scenario;
