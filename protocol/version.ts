/** The protocol version: the `v1` of the connect path. */
export const PROTOCOL_VERSION = 1;

/**
 * SHA-256 of the generated JSON schemas (protocol/json-schema). A test fails
 * when the wire format changes without this being updated on purpose — and
 * PROTOCOL_VERSION bumped when the change is not backwards compatible.
 */
export const PROTOCOL_FINGERPRINT = '299951d0e7badaf26ce3b784eb97104063067a2d498a4898cfb86a515f9bd1ec';
