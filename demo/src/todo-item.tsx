import { useState } from 'react';
import type { Todo } from '../shared/mutators';
import type { DemoClient } from './client';

export function TodoItem({ client, todo, userID }: { readonly client: DemoClient; readonly todo: Todo; readonly userID: string }) {
  const mine = todo.authorID === undefined || todo.authorID === userID;
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(todo.text);

  function save() {
    setEditing(false);
    const text = draft.trim();
    if (text.length > 0 && text !== todo.text) void client.mutate.setTodoText({ id: todo.id, text });
    else setDraft(todo.text);
  }

  return (
    <li className={todo.done ? 'todo done' : 'todo'} data-testid="todo" style={{ ['--user-color' as string]: todo.color }}>
      <input
        type="checkbox"
        aria-label={`Mark "${todo.text}" ${todo.done ? 'not done' : 'done'}`}
        checked={todo.done}
        onChange={(event) => void client.mutate.setTodoDone({ id: todo.id, done: event.target.checked })}
      />
      {editing ? (
        <input
          className="edit"
          autoFocus
          value={draft}
          maxLength={500}
          onChange={(event) => setDraft(event.target.value)}
          onBlur={save}
          onKeyDown={(event) => {
            if (event.key === 'Enter') save();
            if (event.key === 'Escape') {
              setDraft(todo.text);
              setEditing(false);
            }
          }}
        />
      ) : (
        <span
          className="text"
          data-testid="todo-text"
          onDoubleClick={() => {
            setDraft(todo.text);
            setEditing(true);
          }}
        >
          {todo.text}
        </span>
      )}
      <span className="author" title={`Added by ${todo.createdBy}`}>
        {todo.createdBy}
      </span>
      <button
        type="button"
        className="delete"
        aria-label={`Delete "${todo.text}"`}
        disabled={!mine}
        title={mine ? undefined : 'Only its author may delete it'}
        onClick={() => void client.mutate.deleteTodo({ id: todo.id, authorID: userID })}
      >
        ×
      </button>
    </li>
  );
}
