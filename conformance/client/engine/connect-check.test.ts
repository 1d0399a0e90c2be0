import { describe, expect, it } from 'vitest';
import { CheckFailure } from '../../shared/check-failure';
import { checkConnectRequest, type ConnectExpectations } from './connect-check';

const ORIGIN = 'ws://scripted-server.test';
const WSID = 'AAAAAAAAAAAAAAAAAAAA_';
const expectations: ConnectExpectations = { socketOrigin: ORIGIN, roomID: 'room', ids: { clientID: 'c1', clientGroupID: 'g1' }, earlierWsids: new Set() };
const url = (query: string) => `${ORIGIN}/api/sync/v1/connect?${query}`;
const GOOD = `clientID=c1&clientGroupID=g1&roomID=room&baseCookie=&ts=12.5&lmid=0&wsid=${WSID}`;

const failure = (u: string, e: ConnectExpectations = expectations) => {
  try {
    checkConnectRequest(u, e);
  } catch (error) {
    expect(error).toBeInstanceOf(CheckFailure);
    return (error as CheckFailure).message;
  }
  return 'passed';
};

describe('checkConnectRequest', () => {
  it('returns the parameters of a valid request', () => {
    expect(checkConnectRequest(url(GOOD), expectations)).toMatchObject({ baseCookie: '', lmid: '0', ts: '12.5', wsid: WSID });
  });

  it('names what is wrong', () => {
    expect(failure(`${ORIGIN}/api/sync/v2/connect?${GOOD}`)).toBe('the connect request goes to the wrong place');
    expect(failure(url(GOOD.replace('&lmid=0', '')))).toBe('the connect request lacks the lmid parameter');
    expect(failure(url(GOOD.replace('clientID=c1', 'clientID=c2')))).toBe("the connect request's clientID is not the client's");
    expect(failure(url(GOOD.replace(`wsid=${WSID}`, 'wsid=short')))).toMatch(/wsid|invalid/);
    expect(failure(url(GOOD.replace('baseCookie=', 'baseCookie=x')))).toMatch(/baseCookie|invalid/);
    expect(failure(url(GOOD), { ...expectations, earlierWsids: new Set([WSID]) })).toBe('the wsid was used by an earlier socket');
  });
});
