/**
 * Names of the local stores (IndexedDB databases) of a user and room.
 *
 * Format 2 (this one): one shared store per user, room and schema version,
 * `roomsync:<user>:<room>:v2:<schemaVersion>`, its write-ahead log beside it
 * (`…:log`), and one registry of stores per origin.
 * Format 1 (earlier releases): one store per tab slot, `roomsync:<user>:<room>`
 * or `roomsync:<user>:<room>~<slot>`, each with a `…:log`.
 * User, room and schema version are URI-encoded, so ':' only separates.
 */
export const STORE_FORMAT_VERSION = 2;
export const REGISTRY_STORE_NAME = 'roomsync-stores';

const PREFIX = 'roomsync';
const LOG_SUFFIX = 'log';
const enc = encodeURIComponent;

/** What is left of a user and room when they name a store. */
export function storeBaseName(userID: string, roomID: string): string {
  return `${PREFIX}:${enc(userID)}:${enc(roomID)}`;
}

export function dataStoreName(userID: string, roomID: string, schemaVersion: string): string {
  return `${storeBaseName(userID, roomID)}:v${STORE_FORMAT_VERSION}:${enc(schemaVersion)}`;
}

export function logStoreName(dataName: string): string {
  return `${dataName}:${LOG_SUFFIX}`;
}

export interface ParsedStoreName {
  readonly userID: string;
  readonly roomID: string;
  readonly format: number;
  /** Format 2 and later. */
  readonly schemaVersion?: string;
  /** The data store this name belongs to (itself, or the store whose log it is). */
  readonly dataName: string;
  readonly isLog: boolean;
}

/** Reads a store name of any format; undefined for names that are not ours. */
export function parseStoreName(name: string): ParsedStoreName | undefined {
  const parts = name.split(':');
  if (parts[0] !== PREFIX || parts.length < 3) return undefined;
  const isLog = parts.at(-1) === LOG_SUFFIX && parts.length !== 3;
  const body = isLog ? parts.slice(0, -1) : parts;
  const dataName = body.join(':');
  try {
    const userID = decodeURIComponent(body[1]!);
    if (body.length === 3) {
      const room = /^(.*?)(~\d+)?$/.exec(body[2]!)!;
      return { userID, roomID: decodeURIComponent(room[1]!), format: 1, dataName, isLog };
    }
    const version = /^v(\d+)$/.exec(body[3] ?? '');
    if (body.length !== 5 || version === null) return undefined;
    return {
      userID,
      roomID: decodeURIComponent(body[2]!),
      format: Number(version[1]),
      schemaVersion: decodeURIComponent(body[4]!),
      dataName,
      isLog,
    };
  } catch {
    return undefined;
  }
}
