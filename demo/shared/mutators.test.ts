import { afterEach, describe, expect, it } from 'vitest';
import { uniqueID } from '../../server/test-support/test-client';
import { startTestServer, type TestServer } from '../../server/test-support/test-server';
import { demoMutators } from './mutators';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const add = (id: string, authorID: string) => ({ id, text: id, createdBy: authorID, color: '#000', createdAt: 1, authorID });

describe('demo mutators on the reference server', () => {
  it('only the author may delete an item; the server takes the author from the token, not the arguments', async () => {
    t = await startTestServer({ mutators: demoMutators });
    const roomID = uniqueID('room');
    const alice = t.connect({ roomID, token: 'alice' });
    const bob = t.connect({ roomID, token: 'bob' });
    await Promise.all([alice.ready(), bob.ready()]);
    alice.mutate('addTodo', add('a1', 'alice'));
    alice.mutate('addTodo', add('a2', 'alice'));
    alice.mutate('setTodoDone', { id: 'a2', done: true });
    await alice.acked(3);
    // Bob claims to be alice in the arguments: the token says bob.
    bob.mutate('addTodo', add('b1', 'alice'));
    bob.mutate('deleteTodo', { id: 'a1', authorID: 'alice' });
    bob.mutate('setTodoDone', { id: 'b1', done: true });
    bob.mutate('clearCompleted', { authorID: 'alice' });
    await bob.acked(4);
    expect([...bob.state.keys()].sort()).toEqual(['todo/a1', 'todo/a2']);
    expect((bob.state.get('todo/a1') as { authorID: string }).authorID).toBe('alice');
    alice.mutate('deleteTodo', { id: 'a1', authorID: 'alice' });
    alice.mutate('clearCompleted', { authorID: 'alice' });
    await alice.acked(5);
    expect([...alice.state.keys()]).toEqual([]);
  });
});
