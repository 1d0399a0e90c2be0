/**
 * Records keyed by ids a client chooses (client and client group ids): any
 * string is an id, "__proto__", "constructor" and "toString" included, so a
 * key is read only as an own property and written as one (a plain
 * `record["__proto__"] = v` would set the record's prototype instead).
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}

/** The record under `key` (an own property), made empty first when there is none. */
export function ownRecord<T>(records: Record<string, Record<string, T>>, key: string): Record<string, T> {
  if (Object.hasOwn(records, key)) return records[key]!;
  const record: Record<string, T> = {};
  setOwn(records, key, record);
  return record;
}
