import { useSyncExternalStore } from 'react';
import { useSubscribe } from '../../src/react/index';
import { listTodos, type Todo } from '../shared/mutators';
import type { DemoClient, Flag } from './client';
import { ConnectionIndicator } from './connection-indicator';
import type { Identity } from './identity';
import { NewTodo } from './new-todo';
import { OfflineToggle } from './offline-toggle';
import { PendingBadge } from './pending-badge';
import { TodoItem } from './todo-item';
import { WhoIsHere } from './who-is-here';

interface AppProps {
  readonly client: DemoClient;
  readonly identity: Identity;
  readonly roomID: string;
  readonly updateNeeded: Flag;
}

const NO_TODOS: Todo[] = [];

export function App({ client, identity, roomID, updateNeeded }: AppProps) {
  const todos = useSubscribe(client, listTodos, NO_TODOS);
  const needsUpdate = useSyncExternalStore(updateNeeded.subscribe, updateNeeded.get);
  const done = todos.filter((todo) => todo.done).length;

  return (
    <div className="page">
      {needsUpdate && (
        <div className="banner" role="alert">
          A new version of this app is available.{' '}
          <button type="button" onClick={() => location.reload()}>
            Reload
          </button>
        </div>
      )}
      <header className="header">
        <div className="title">
          <h1>Shared todos</h1>
          <span className="room" title="Share this page's address to work together">
            room <strong data-testid="room">{roomID}</strong>
          </span>
        </div>
        <div className="status">
          <span className="user" style={{ ['--user-color' as string]: identity.color }} data-testid="user">
            {identity.name}
          </span>
          <ConnectionIndicator client={client} />
          <PendingBadge client={client} />
          <OfflineToggle client={client} />
        </div>
      </header>

      <WhoIsHere client={client} />

      <main className="card">
        <NewTodo client={client} identity={identity} />
        {todos.length === 0 ? (
          <p className="empty">Nothing here yet. Add the first item — everyone in this room sees it at once.</p>
        ) : (
          <ul className="todos" data-testid="todos">
            {todos.map((todo) => (
              <TodoItem key={todo.id} client={client} todo={todo} userID={identity.userID} />
            ))}
          </ul>
        )}
        <footer className="footer">
          <span data-testid="counts">
            {todos.length - done} open · {done} done
          </span>
          <button type="button" className="link" disabled={done === 0} onClick={() => void client.mutate.clearCompleted({ authorID: identity.userID })}>
            Clear completed
          </button>
        </footer>
      </main>
      <p className="hint">Open this page in another browser to edit together. Edits made offline sync when you are back.</p>
    </div>
  );
}
