import { describe, expect, it } from 'vitest';
import type { PushBody } from '../../src/protocol';
import type { BatchRequest, HostBatchRequest } from './engine-types';
import { unwireBatch } from './worker-protocol';

const body: PushBody = {
  timestamp: 1,
  clientGroupID: 'g',
  mutations: [{ id: 1, clientID: 'c', name: 'put', args: JSON.parse('{"key":"k","value":{"__proto__":1,"nested":["é",null]}}'), timestamp: 2 }],
  pushVersion: 1,
  schemaVersion: '1',
  requestID: 'r1',
};
const auth = { userID: 'u', claims: { role: 'editor' } };

describe('batch requests sent to a worker', () => {
  it('carry a push read from a frame as that frame text, and the worker gets the same body back', () => {
    const frame = JSON.stringify(['push', JSON.parse(JSON.stringify(body))]);
    const request: HostBatchRequest = { pushes: [{ conn: 0, auth, frame }], timedOut: [{ push: 0, mutation: 0 }] };
    const back = unwireBatch(structuredClone(request));
    expect(back.pushes[0]!.push).toEqual(body);
    const value = (back.pushes[0]!.push.mutations[0]!.args as { value: object }).value;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(back.timedOut).toEqual([{ push: 0, mutation: 0 }]);
  });

  it('carry a push without a frame (presence, tests) as its body', () => {
    const request: BatchRequest = { pushes: [{ conn: 1, auth, push: body }], timedOut: [], presence: [] };
    const back = unwireBatch(structuredClone(request));
    expect(back).toEqual(request);
    // Nothing to parse: the request itself (the main-thread path makes no copy).
    expect(unwireBatch(request)).toBe(request);
  });
});
