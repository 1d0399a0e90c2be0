import { expect, it } from 'vitest';
import { PROTOCOL_FINGERPRINT, PROTOCOL_VERSION } from '../protocol/version';
import { protocolFingerprint } from './fingerprint';

it('the wire schemas match the pinned protocol fingerprint', () => {
  const actual = protocolFingerprint();
  expect(
    actual,
    `The wire format changed. If that is on purpose: make sure it is compatible with protocol v${PROTOCOL_VERSION} ` +
      `(or bump PROTOCOL_VERSION), then set PROTOCOL_FINGERPRINT in protocol/version.ts to '${actual}'.`,
  ).toBe(PROTOCOL_FINGERPRINT);
});
