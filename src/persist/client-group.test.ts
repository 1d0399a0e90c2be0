import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../kv/memory-store';
import { CLIENT_GROUP_KEY, disableClientGroup, resolveClientGroup } from './client-group';

let n = 0;
const stores: string[] = [];
function store(): MemoryStore {
  const name = `client-group-${++n}`;
  stores.push(name);
  return new MemoryStore(name);
}
afterEach(() => {
  for (const name of stores.splice(0)) MemoryStore.drop(name);
});

function ids() {
  let i = 0;
  return () => `group-${++i}`;
}

describe('resolveClientGroup', () => {
  const base = { mutatorNames: ['put', 'del'], indexes: { byOwner: { jsonPointer: '/owner' } } };

  it('creates a group once and joins it on every later open', async () => {
    const kv = store();
    const next = ids();
    expect(await resolveClientGroup(kv, { ...base, newClientGroupID: next })).toBe('group-1');
    expect(await resolveClientGroup(kv, { ...base, newClientGroupID: next })).toBe('group-1');
    const reopened = new MemoryStore(stores.at(-1)!);
    expect(await resolveClientGroup(reopened, { ...base, mutatorNames: ['del', 'put'], newClientGroupID: next })).toBe('group-1');
  });

  it('starts a new group when the mutators or indexes changed', async () => {
    const kv = store();
    const next = ids();
    const discarded: string[] = [];
    const onDiscard = (reason: string) => discarded.push(reason);
    await resolveClientGroup(kv, { ...base, newClientGroupID: next });
    expect(await resolveClientGroup(kv, { ...base, mutatorNames: ['put'], newClientGroupID: next, onDiscard })).toBe('group-2');
    expect(await resolveClientGroup(kv, { mutatorNames: ['put'], indexes: {}, newClientGroupID: next, onDiscard })).toBe('group-3');
    expect(discarded).toEqual(['the mutators changed', 'the indexes changed']);
  });

  it('starts a new group after the server disabled the old one', async () => {
    const kv = store();
    const next = ids();
    await resolveClientGroup(kv, { ...base, newClientGroupID: next });
    await disableClientGroup(kv, 'some-other-group');
    expect(await resolveClientGroup(kv, { ...base, newClientGroupID: next })).toBe('group-1');
    await disableClientGroup(kv, 'group-1');
    expect(await resolveClientGroup(kv, { ...base, newClientGroupID: next })).toBe('group-2');
  });

  it('replaces a malformed record instead of failing', async () => {
    const kv = store();
    const write = await kv.write();
    await write.put(CLIENT_GROUP_KEY, { clientGroupID: 7 });
    await write.commit();
    const discarded: string[] = [];
    expect(await resolveClientGroup(kv, { ...base, newClientGroupID: ids(), onDiscard: (r) => discarded.push(r) })).toBe('group-1');
    expect(discarded).toEqual(['the stored client group record is malformed']);
  });

  it('gives concurrent opens of one store the same group', async () => {
    const kv = store();
    const next = ids();
    const results = await Promise.all([1, 2, 3].map(() => resolveClientGroup(kv, { ...base, newClientGroupID: next })));
    expect(new Set(results)).toEqual(new Set(['group-1']));
  });
});
