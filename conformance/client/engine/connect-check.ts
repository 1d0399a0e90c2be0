import { connectPath, parseConnectRequest } from '../../../src/protocol';
import { CheckFailure } from '../../shared/check-failure';
import type { ClientIDs } from './placeholders';

const WSID_PATTERN = /^[A-Za-z0-9_-]{21}$/;
const REQUIRED_PARAMS = ['clientID', 'clientGroupID', 'roomID', 'baseCookie', 'ts', 'lmid', 'wsid'] as const;

export interface ConnectExpectations {
  readonly socketOrigin: string;
  readonly roomID: string;
  readonly ids: ClientIDs;
  /** wsids of the client's earlier sockets: each socket needs a fresh one. */
  readonly earlierWsids: ReadonlySet<string>;
}

/**
 * Checks a connect request against PROTOCOL.md (path, every parameter, their
 * forms, the client's own ids, a fresh wsid) and returns its query parameters.
 */
export function checkConnectRequest(url: string, expect: ConnectExpectations): Record<string, string> {
  const expectedPrefix = `${expect.socketOrigin}${connectPath()}?`;
  if (!url.startsWith(expectedPrefix)) {
    throw new CheckFailure('the connect request goes to the wrong place', `${expectedPrefix}…`, url);
  }
  const query = new URL(url).searchParams;
  for (const name of REQUIRED_PARAMS) {
    if (!query.has(name)) throw new CheckFailure(`the connect request lacks the ${name} parameter`, REQUIRED_PARAMS.join(', '), url);
  }
  const pathAndQuery = url.slice(expect.socketOrigin.length);
  try {
    parseConnectRequest(pathAndQuery);
  } catch (error) {
    throw new CheckFailure(`the connect request is invalid: ${(error as Error).message}`, 'a valid connect request', url);
  }
  const params = Object.fromEntries(query);
  const own: Record<string, string> = { clientID: expect.ids.clientID, clientGroupID: expect.ids.clientGroupID, roomID: expect.roomID };
  for (const [name, value] of Object.entries(own)) {
    if (params[name] !== value) throw new CheckFailure(`the connect request's ${name} is not the client's`, value, params[name]);
  }
  if (params.baseCookie !== '' && !/^[0-9]+$/.test(params.baseCookie!)) {
    throw new CheckFailure('baseCookie must be empty or a decimal cookie', "'' or an integer", params.baseCookie);
  }
  if (!/^[0-9]+$/.test(params.lmid!)) throw new CheckFailure('lmid must be a decimal integer', 'an integer', params.lmid);
  if (!Number.isFinite(Number(params.ts)) || params.ts === '') throw new CheckFailure('ts must be a number', 'a decimal number', params.ts);
  if (!WSID_PATTERN.test(params.wsid!)) throw new CheckFailure('wsid must be 21 URL-safe characters', '21 of [A-Za-z0-9_-]', params.wsid);
  if (expect.earlierWsids.has(params.wsid!)) throw new CheckFailure('the wsid was used by an earlier socket', 'a fresh wsid per socket', params.wsid);
  return params;
}
