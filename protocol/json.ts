import { Type, type Static } from '@sinclair/typebox';

export type JSONValue = null | string | boolean | number | JSONValue[] | { [key: string]: JSONValue };

export type ReadonlyJSONValue =
  | null
  | string
  | boolean
  | number
  | readonly ReadonlyJSONValue[]
  | { readonly [key: string]: ReadonlyJSONValue };

/**
 * Any JSON value. Used inside wire messages: a frame is produced by JSON.parse,
 * so every value in it is JSON already and deep validation would only cost time.
 */
export const JsonAny = Type.Unsafe<ReadonlyJSONValue>({ description: 'Any JSON value.' });

/** A JSON value, checked deeply: for records that do not come from JSON.parse. */
export const JsonValue = Type.Recursive(
  (self) =>
    Type.Union([
      Type.Null(),
      Type.String(),
      Type.Boolean(),
      Type.Number(),
      Type.Array(self),
      Type.Record(Type.String(), self),
    ]),
  { $id: 'JsonValue', title: 'JsonValue', description: 'Any JSON value, checked deeply.' },
);
export type JsonValueStatic = Static<typeof JsonValue>;
