import { PROTOCOL_VERSION } from '../../protocol/version';
import type { ConnectQuery } from './generated/types';
import { validateConnectQuery } from './generated/validators';
import { ProtocolError } from './protocol-error';
import { validationMessage } from './validation-message';

/** What a client says when it connects (PROTOCOL.md, Connect), as typed values. */
export interface ConnectParams {
  readonly clientID: string;
  readonly clientGroupID: string;
  readonly roomID: string;
  /** null when the client has never synced. */
  readonly baseCookie: number | null;
  /** The client's performance.now() at connect. */
  readonly ts: number;
  /** Last mutation id of this client acknowledged by the server (0 at first). */
  readonly lmid: number;
  /** A fresh random id per socket. */
  readonly wsid: string;
}

const PATH_PATTERN = /^\/api\/sync\/v([0-9]+)\/connect$/;

export function connectPath(version: number = PROTOCOL_VERSION): string {
  return `/api/sync/v${version}/connect`;
}

/** `{socketOrigin}/api/sync/v1/connect?clientID=…&…` */
export function buildConnectURL(socketOrigin: string, params: ConnectParams, version: number = PROTOCOL_VERSION): string {
  const query = new URLSearchParams({
    clientID: params.clientID,
    clientGroupID: params.clientGroupID,
    roomID: params.roomID,
    baseCookie: params.baseCookie === null ? '' : String(params.baseCookie),
    ts: String(params.ts),
    lmid: String(params.lmid),
    wsid: params.wsid,
  });
  return `${socketOrigin.replace(/\/+$/, '')}${connectPath(version)}?${query}`;
}

/**
 * The auth token as the Sec-WebSocket-Protocol value: encodeURIComponent, plus
 * the two characters it keeps that are not allowed in a subprotocol token.
 * Undefined for an empty token (the header is then omitted).
 */
export function encodeAuthSubprotocol(token: string | undefined): string | undefined {
  if (!token) return undefined;
  return encodeURIComponent(token).replace(/\(/g, '%28').replace(/\)/g, '%29');
}

export function decodeAuthSubprotocol(header: string | undefined): string | undefined {
  if (!header) return undefined;
  try {
    return decodeURIComponent(header);
  } catch {
    return undefined;
  }
}

/**
 * Reads a connect request's path and query. Throws ProtocolError with kind
 * VersionNotSupported for another protocol version and InvalidConnectionRequest
 * for a wrong path or missing/invalid parameters.
 */
export function parseConnectRequest(pathAndQuery: string): { version: number; params: ConnectParams } {
  const url = new URL(pathAndQuery, 'ws://connect.invalid');
  const match = PATH_PATTERN.exec(url.pathname);
  if (match === null) {
    throw new ProtocolError('InvalidConnectionRequest', `Unknown path ${url.pathname}; expected ${connectPath()}`);
  }
  const version = Number(match[1]);
  if (version !== PROTOCOL_VERSION) {
    throw new ProtocolError('VersionNotSupported', `Protocol version ${version} is not supported; this server speaks v${PROTOCOL_VERSION}`);
  }
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) if (!(key in query)) query[key] = value;
  if (!validateConnectQuery(query)) {
    const error = validateConnectQuery.errors?.[0];
    const where = error?.instancePath ? `parameter ${error.instancePath.slice(1)}` : 'query';
    throw new ProtocolError('InvalidConnectionRequest', `Invalid connect request: ${where} ${error === undefined ? 'is invalid' : validationMessage(error)}`);
  }
  return { version, params: toParams(query) };
}

function toParams(query: ConnectQuery): ConnectParams {
  return {
    clientID: query.clientID,
    clientGroupID: query.clientGroupID,
    roomID: query.roomID,
    baseCookie: query.baseCookie === '' ? null : Number(query.baseCookie),
    ts: Number(query.ts),
    lmid: Number(query.lmid),
    wsid: query.wsid,
  };
}
