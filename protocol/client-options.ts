import { Type, type Static } from '@sinclair/typebox';

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The data part of ReflectOptions (SPEC.md §3). auth may also be a function,
 * and mutators, logSinks and metrics are objects with functions: those are
 * checked by the client, not described here.
 */
export const ClientOptionsData = Type.Object(
  {
    userID: Type.String({ minLength: 1 }),
    roomID: Type.String({ minLength: 1 }),
    socketOrigin: Type.Union([Type.String({ pattern: '^wss?://' }), Type.Null()]),
    auth: Type.Optional(Type.String()),
    schemaVersion: Type.Optional(Type.String()),
    logLevel: Type.Optional(Type.Unsafe<LogLevel>({ type: 'string', enum: [...LOG_LEVELS] })),
  },
  { $id: 'ClientOptionsData', title: 'ClientOptionsData' },
);
export type ClientOptionsData = Static<typeof ClientOptionsData>;
