import { describe, expect, it } from 'vitest';
import {
  buildConnectURL,
  decodeAuthSubprotocol,
  encodeAuthSubprotocol,
  parseConnectRequest,
  type ConnectParams,
} from './connect-request';
import { ProtocolError } from './protocol-error';

const params: ConnectParams = {
  clientID: 'c-1',
  clientGroupID: 'g-1',
  roomID: 'room one/ä',
  baseCookie: null,
  ts: 1234.5,
  lmid: 0,
  wsid: 'V1StGXR8_Z5jdHi6B-myT',
};

function kindOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ProtocolError);
    return (error as ProtocolError).kind;
  }
  return 'accepted';
}

describe('connect request', () => {
  it('builds the exact URL', () => {
    expect(buildConnectURL('wss://sync.example.test/', params)).toBe(
      'wss://sync.example.test/api/sync/v1/connect?clientID=c-1&clientGroupID=g-1&roomID=room+one%2F%C3%A4&baseCookie=&ts=1234.5&lmid=0&wsid=V1StGXR8_Z5jdHi6B-myT',
    );
    expect(buildConnectURL('ws://127.0.0.1:8080', { ...params, baseCookie: 17, lmid: 4 })).toContain('baseCookie=17&ts=1234.5&lmid=4&');
  });

  it('parses what it builds', () => {
    for (const p of [params, { ...params, baseCookie: 0 }, { ...params, baseCookie: 99, lmid: 12, ts: 7 }]) {
      const url = new URL(buildConnectURL('ws://h:1', p));
      expect(parseConnectRequest(url.pathname + url.search)).toEqual({ version: 1, params: p });
    }
  });

  it('names the kind of a bad request', () => {
    const good = new URL(buildConnectURL('ws://h:1', params));
    const withParam = (key: string, value: string | null) => {
      const search = new URLSearchParams(good.search);
      if (value === null) search.delete(key);
      else search.set(key, value);
      return `${good.pathname}?${search}`;
    };
    expect(kindOf(() => parseConnectRequest(`/api/sync/v2/connect${good.search}`))).toBe('VersionNotSupported');
    expect(kindOf(() => parseConnectRequest(`/api/other${good.search}`))).toBe('InvalidConnectionRequest');
    for (const key of ['clientID', 'clientGroupID', 'roomID', 'baseCookie', 'ts', 'lmid', 'wsid']) {
      expect(kindOf(() => parseConnectRequest(withParam(key, null))), key).toBe('InvalidConnectionRequest');
    }
    expect(kindOf(() => parseConnectRequest(withParam('clientID', '')))).toBe('InvalidConnectionRequest');
    expect(kindOf(() => parseConnectRequest(withParam('baseCookie', 'abc')))).toBe('InvalidConnectionRequest');
    expect(kindOf(() => parseConnectRequest(withParam('lmid', '-1')))).toBe('InvalidConnectionRequest');
    expect(kindOf(() => parseConnectRequest(withParam('wsid', 'short')))).toBe('InvalidConnectionRequest');
  });

  it('says which parameter is wrong', () => {
    const url = new URL(buildConnectURL('ws://h:1', params));
    url.searchParams.delete('roomID');
    expect(() => parseConnectRequest(url.pathname + url.search)).toThrow(/roomID/);
  });

  it('encodes the auth token as a valid subprotocol and back', () => {
    const token = 'a b/c=(d)+é';
    const encoded = encodeAuthSubprotocol(token)!;
    expect(encoded).toMatch(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/);
    expect(decodeAuthSubprotocol(encoded)).toBe(token);
    expect(encodeAuthSubprotocol('')).toBeUndefined();
    expect(encodeAuthSubprotocol(undefined)).toBeUndefined();
    expect(decodeAuthSubprotocol('%E0%A4%A')).toBeUndefined();
  });
});
