import { RECONNECT_BACKOFF_INITIAL_MS } from '../../../protocol/constants';
import type { Scenario } from '../scenario';

/** Frames a client must reject (SPEC §4: an unknown or unparseable message rejects with InvalidMessage). */
const INVALID_FRAMES: Readonly<Record<string, string>> = {
  'not-json': 'this is not JSON',
  'not-an-array': '{"name":"poke"}',
  'unknown-name': '["gossip",{}]',
  'poke-cookie-string': '["poke",{"baseCookie":null,"cookie":"1","lastMutationIDChanges":{},"patch":[],"requestID":"r"}]',
  'poke-missing-patch': '["poke",{"baseCookie":null,"cookie":1,"lastMutationIDChanges":{},"requestID":"r"}]',
  'poke-bad-op': '["poke",{"baseCookie":null,"cookie":1,"lastMutationIDChanges":{},"patch":[{"op":"upsert","key":"a","value":1}],"requestID":"r"}]',
  'error-unknown-kind': '["error","Teapot","no such kind"]',
  'connected-without-wsid': '["connected",{}]',
};

const invalid = ([label, text]: [string, string]): Scenario => ({
  name: `invalid-downstream/${label}`,
  spec: 'SPEC §4 Server messages handled, §5 (cookie null or a number; put, del or clear; known error codes)',
  description: `The frame ${text} is rejected: the client disconnects, applies nothing and retries after the back-off.`,
  steps: [
    { step: 'expectConnect', at: 0 },
    { step: 'sendConnected' },
    { step: 'sendText', text },
    { step: 'expectDisconnect', at: 0 },
    { step: 'expectState', state: {} },
    { step: 'expectClient', online: false },
    { step: 'expectConnect', at: RECONNECT_BACKOFF_INITIAL_MS, params: { baseCookie: '' } },
  ],
});

export default Object.entries(INVALID_FRAMES).map(invalid);
