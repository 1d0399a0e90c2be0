import type { ReadonlyJSONValue } from '../../protocol/json';
import { IndexKeyNullByteError } from './errors';
import { encodeIndexKey } from './index-key';
import { evaluateJSONPointer, parseJSONPointer } from './json-pointer';

export interface IndexDefinition {
  /** Only primary keys starting with this prefix are indexed. @default '' */
  readonly prefix?: string;
  /** Where the secondary key is in the value (RFC 6901). */
  readonly jsonPointer: string;
  /**
   * When the pointer finds no string (missing, or not a string), the entry is
   * skipped. With `allowEmpty: false` (the default) that is reported through
   * the `onSkip` hook of the index (the store logs it); with `true` it is silent.
   * @default false
   */
  readonly allowEmpty?: boolean;
}

export type IndexDefinitions = Readonly<Record<string, IndexDefinition>>;

/** A definition prepared for the hot path. */
export interface CompiledIndex {
  readonly name: string;
  readonly definition: Required<IndexDefinition>;
  readonly tokens: readonly string[];
}

export function compileIndex(name: string, def: IndexDefinition): CompiledIndex {
  const definition = { prefix: def.prefix ?? '', jsonPointer: def.jsonPointer, allowEmpty: def.allowEmpty ?? false };
  return { name, definition, tokens: parseJSONPointer(def.jsonPointer) };
}

export function sameIndexDefinition(a: IndexDefinition, b: IndexDefinition): boolean {
  return (
    (a.prefix ?? '') === (b.prefix ?? '') &&
    a.jsonPointer === b.jsonPointer &&
    (a.allowEmpty ?? false) === (b.allowEmpty ?? false)
  );
}

export type IndexSkipHandler = (index: CompiledIndex, primaryKey: string) => void;

/**
 * The encoded index-map keys for one primary entry: one per string found at
 * the pointer, one per string element when it finds an array. Throws
 * IndexKeyNullByteError for a secondary key containing "\0".
 */
export function indexKeysFor(
  index: CompiledIndex,
  primaryKey: string,
  value: ReadonlyJSONValue,
  onSkip?: IndexSkipHandler,
): string[] {
  if (!primaryKey.startsWith(index.definition.prefix)) return [];
  const found = evaluateJSONPointer(value, index.tokens);
  const out: string[] = [];
  if (typeof found === 'string') {
    out.push(secondaryToKey(index, found, primaryKey));
  } else if (Array.isArray(found)) {
    for (const el of found as readonly ReadonlyJSONValue[]) {
      if (typeof el === 'string') out.push(secondaryToKey(index, el, primaryKey));
    }
  }
  if (out.length === 0 && !index.definition.allowEmpty && !Array.isArray(found)) onSkip?.(index, primaryKey);
  return out;
}

function secondaryToKey(index: CompiledIndex, secondary: string, primaryKey: string): string {
  if (secondary.includes('\u0000')) throw new IndexKeyNullByteError(index.name, primaryKey);
  return encodeIndexKey(secondary, primaryKey);
}
