export * from './codec';
export * from './connect-request';
export * from './json-limits';
export * from './messages';
export * from './protocol-error';
export type * from './generated/types';
export * from '../../protocol/constants';
export { ERROR_KINDS, CLIENT_ONLY_ERROR_KINDS } from '../../protocol/error-kind-list';
export { PROTOCOL_VERSION, PROTOCOL_FINGERPRINT } from '../../protocol/version';
