import { describe, expect, it } from 'vitest';
import type { PushBody } from '../../src/protocol';
import type { BatchRequest, BatchResult, HostBatchRequest } from './engine-types';
import { setOwn } from './own-record';
import { isBatchRequestWire, isBatchResultWire, unwireBatch, unwireBatchRequest, unwireBatchResult, wireBatchRequest, wireBatchResult } from './worker-protocol';

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

describe('batches on the wire between threads', () => {
  it('a request comes back as the one sent: frames and bodies, in order, with timed-out places and presence changes', () => {
    const frame = JSON.stringify(['push', body]);
    const request: HostBatchRequest = {
      pushes: [
        { conn: 0, auth, frame },
        { conn: 2, auth: { userID: 'v', claims: {} }, budgetKey: 'anonymous@10.0.0.1', push: body },
        { conn: 0, auth, budgetKey: 'u', frame: `${frame} ` },
      ],
      timedOut: [
        { push: 0, mutation: 3 },
        { push: 2, mutation: 0 },
      ],
      presence: [
        { kind: 'join', clientID: 'c', userID: 'u', node: 'n1' },
        { kind: 'leave', clientID: 'd', node: 'n1' },
      ],
    };
    const wire = structuredClone(wireBatchRequest(7, 'room', request));
    expect(isBatchRequestWire(wire)).toBe(true);
    expect(unwireBatchRequest(wire)).toStrictEqual({ id: 7, op: 'batch', roomID: 'room', request: structuredClone(request) });
    const bare: HostBatchRequest = { pushes: [{ conn: 0, auth, frame }], timedOut: [] };
    expect(unwireBatchRequest(structuredClone(wireBatchRequest(8, 'room', bare)))).toStrictEqual({ id: 8, op: 'batch', roomID: 'room', request: bare });
  });

  it('a result comes back as a structured clone of it would: tombstones, optional fields, refusals, and ids that are names on Object.prototype', () => {
    const changesByGroup: Record<string, Record<string, number>> = { g: { c: 3, d: 1 } };
    const protoGroup: Record<string, number> = {};
    setOwn(protoGroup, '__proto__', 9);
    setOwn(changesByGroup, '__proto__', protoGroup);
    setOwn(changesByGroup, 'toString', { hasOwnProperty: 2 });
    const result: BatchResult = {
      failures: [{ conn: 1, kind: 'InvalidPush', message: 'no' }],
      commit: {
        baseVersion: 4,
        version: 5,
        entries: [
          { key: 'a', json: '{"x":[1,"é"]}', version: 5 },
          { key: 'b', json: undefined, version: 5 },
        ],
        clients: [
          { clientID: 'c', clientGroupID: 'g', lastMutationID: 3, userID: 'u' },
          { clientID: 'old', clientGroupID: 'g', lastMutationID: 1 },
        ],
        tombstoneHorizon: 2,
        presenceOnly: true,
      },
      patchJSON: '[{"op":"put","key":"a","value":{"x":[1,"é"]}},{"op":"del","key":"b"}]',
      changesByGroup,
      mutations: 3,
      failedCount: 4,
      failed: [{ clientID: 'c', mutationID: 2, name: 'boom', userID: 'u', error: { name: 'Error', message: 'x' } }],
    };
    const wire = structuredClone(wireBatchResult(11, result));
    expect(isBatchResultWire(wire)).toBe(true);
    expect(isBatchRequestWire(wire)).toBe(false);
    const back = unwireBatchResult(wire);
    expect(back.id).toBe(11);
    expect(back.value).toStrictEqual(structuredClone(result));
    expect(Object.hasOwn(back.value.changesByGroup, '__proto__')).toBe(true);
    expect(Object.hasOwn(back.value.changesByGroup['__proto__']!, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(back.value.changesByGroup)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['toString']).toBe(Object.prototype.toString);
  });

  it('a result with nothing to store comes back without a commit', () => {
    const result: BatchResult = { failures: [], commit: undefined, patchJSON: '[]', changesByGroup: {}, mutations: 0, failedCount: 0, failed: [] };
    expect(unwireBatchResult(structuredClone(wireBatchResult(1, result))).value).toStrictEqual(result);
  });
});
