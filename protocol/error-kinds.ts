import { Type } from '@sinclair/typebox';
import { ERROR_KINDS, type ErrorKind as ErrorKindName } from './error-kind-list';

export { ERROR_KINDS, CLIENT_ONLY_ERROR_KINDS } from './error-kind-list';

export type ErrorKind = ErrorKindName;
export const ErrorKind = Type.Unsafe<ErrorKindName>({
  $id: 'ErrorKind',
  title: 'ErrorKind',
  description: 'A protocol error kind (SPEC.md §8).',
  type: 'string',
  enum: [...ERROR_KINDS],
});
