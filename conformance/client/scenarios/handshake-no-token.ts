import type { Scenario } from '../scenario';

const scenario: Scenario = {
  name: 'handshake/no-token',
  spec: 'PROTOCOL Connect (subprotocol omitted when the token is empty)',
  description: 'Without an auth option the connect request carries no subprotocol at all.',
  client: { authPrefix: false },
  steps: [
    { step: 'expectConnect', at: 0, protocol: null },
    { step: 'sendConnected' },
    { step: 'expectClient', online: true },
  ],
};

export default scenario;
