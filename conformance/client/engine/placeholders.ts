import type { ReadonlyJSONValue } from '../../../protocol/json';

export interface ClientIDs {
  readonly clientID: string;
  readonly clientGroupID: string;
  /** The ids of the scenario's orphan (another build's closed tab), when it has one. */
  readonly orphanClientID?: string;
  readonly orphanGroupID?: string;
}

/** Replaces "$clientID", "$clientGroupID", "$orphanClientID" and "$orphanGroupID" in every string and object key of `value`. */
export function substitute(value: ReadonlyJSONValue, ids: ClientIDs): ReadonlyJSONValue {
  if (typeof value === 'string') return substituteString(value, ids);
  if (Array.isArray(value)) return value.map((item: ReadonlyJSONValue) => substitute(item, ids));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [substituteString(key, ids), substitute(item, ids)]));
  }
  return value;
}

export function substituteString(text: string, ids: ClientIDs): string {
  return text
    .replaceAll('$orphanClientID', ids.orphanClientID ?? '$orphanClientID')
    .replaceAll('$orphanGroupID', ids.orphanGroupID ?? '$orphanGroupID')
    .replaceAll('$clientGroupID', ids.clientGroupID)
    .replaceAll('$clientID', ids.clientID);
}
