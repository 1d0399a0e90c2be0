/**
 * The protocol as data: every wire message, every persisted record, the error
 * kinds and the constants. The single source of truth; no logic.
 */
import type { TSchema } from '@sinclair/typebox';
import { ClientOptionsData } from './client-options';
import { ConnectQuery } from './connect';
import {
  ConnectedBody,
  ConnectedMessage,
  ErrorMessage,
  PokeBody,
  PokeMessage,
  PongMessage,
  PullResponseBody,
  PullResponseMessage,
} from './downstream';
import { ErrorKind } from './error-kinds';
import { JsonValue } from './json';
import { Mutation } from './mutation';
import { PatchOperation } from './patch';
import { ChunkRecord, ClientGroupRecord, ClientRecord, IndexDefinition, RefCount, SecondaryIndexKey } from './records';
import { PingMessage, PullRequestBody, PullRequestMessage, PushBody, PushMessage } from './upstream';

export * from './client-options';
export * from './connect';
export * from './constants';
export * from './downstream';
export * from './error-kinds';
export * from './json';
export * from './mutation';
export * from './patch';
export * from './primitives';
export * from './records';
export * from './upstream';
export * from './version';

/** Which way a message travels, for messages; 'record' for everything else. */
export type SchemaRole = 'upstream' | 'downstream' | 'record';

export interface ProtocolSchema {
  readonly name: string;
  readonly role: SchemaRole;
  readonly schema: TSchema;
}

/** Every schema the generator emits, in a fixed order (output is deterministic). */
export const PROTOCOL_SCHEMAS: readonly ProtocolSchema[] = [
  { name: 'PingMessage', role: 'upstream', schema: PingMessage },
  { name: 'PushMessage', role: 'upstream', schema: PushMessage },
  { name: 'PullRequestMessage', role: 'upstream', schema: PullRequestMessage },
  { name: 'ConnectedMessage', role: 'downstream', schema: ConnectedMessage },
  { name: 'PongMessage', role: 'downstream', schema: PongMessage },
  { name: 'PokeMessage', role: 'downstream', schema: PokeMessage },
  { name: 'PullResponseMessage', role: 'downstream', schema: PullResponseMessage },
  { name: 'ErrorMessage', role: 'downstream', schema: ErrorMessage },
  { name: 'PushBody', role: 'record', schema: PushBody },
  { name: 'PullRequestBody', role: 'record', schema: PullRequestBody },
  { name: 'ConnectedBody', role: 'record', schema: ConnectedBody },
  { name: 'PokeBody', role: 'record', schema: PokeBody },
  { name: 'PullResponseBody', role: 'record', schema: PullResponseBody },
  { name: 'Mutation', role: 'record', schema: Mutation },
  { name: 'PatchOperation', role: 'record', schema: PatchOperation },
  { name: 'ConnectQuery', role: 'record', schema: ConnectQuery },
  { name: 'ErrorKind', role: 'record', schema: ErrorKind },
  { name: 'JsonValue', role: 'record', schema: JsonValue },
  { name: 'IndexDefinition', role: 'record', schema: IndexDefinition },
  { name: 'SecondaryIndexKey', role: 'record', schema: SecondaryIndexKey },
  { name: 'RefCount', role: 'record', schema: RefCount },
  { name: 'ChunkRecord', role: 'record', schema: ChunkRecord },
  { name: 'ClientGroupRecord', role: 'record', schema: ClientGroupRecord },
  { name: 'ClientRecord', role: 'record', schema: ClientRecord },
  { name: 'ClientOptionsData', role: 'record', schema: ClientOptionsData },
];
