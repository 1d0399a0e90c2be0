/** The protocol version: the `v1` of the connect path. */
export const PROTOCOL_VERSION = 1;

/**
 * SHA-256 of the generated JSON schemas (protocol/json-schema). A test fails
 * when the wire format changes without this being updated on purpose — and
 * PROTOCOL_VERSION bumped when the change is not backwards compatible.
 */
export const PROTOCOL_FINGERPRINT = '25d0f2faba9efc0ca365257c7ac5432a5d5c50398e48b7e0f00dd3246b841574';
