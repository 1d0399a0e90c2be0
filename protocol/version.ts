/** The protocol version: the `v1` of the connect path. */
export const PROTOCOL_VERSION = 1;

/**
 * SHA-256 of the generated JSON schemas (protocol/json-schema). A test fails
 * when the wire format changes without this being updated on purpose — and
 * PROTOCOL_VERSION bumped when the change is not backwards compatible.
 */
export const PROTOCOL_FINGERPRINT = 'ca976d871ded48da471b1aa89077f996a715797fca6e278d502564ad2a0d7146';
