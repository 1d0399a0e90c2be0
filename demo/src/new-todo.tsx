import { useState, type FormEvent } from 'react';
import type { DemoClient } from './client';
import type { Identity } from './identity';

export function NewTodo({ client, identity }: { readonly client: DemoClient; readonly identity: Identity }) {
  const [text, setText] = useState('');

  function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = text.trim();
    if (trimmed.length === 0) return;
    void client.mutate.addTodo({
      id: crypto.randomUUID(),
      text: trimmed,
      createdBy: identity.name,
      color: identity.color,
      createdAt: Date.now(),
      authorID: identity.userID,
    });
    setText('');
  }

  return (
    <form className="new-todo" onSubmit={submit}>
      <input
        aria-label="New item"
        data-testid="new-todo"
        placeholder="What needs doing?"
        value={text}
        maxLength={500}
        onChange={(event) => setText(event.target.value)}
      />
      <button type="submit" disabled={text.trim().length === 0}>
        Add
      </button>
    </form>
  );
}
