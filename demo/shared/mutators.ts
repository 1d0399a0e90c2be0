/**
 * The demo's mutators: one module, run by the browser client (optimistically)
 * and by the reference server (authoritatively). Deterministic: ids and times
 * come in the arguments, never from Math.random or the clock.
 */
import type { MutatorDefs, ReadTransaction, WriteTransaction } from '../../src/db/transaction-types';

export const TODO_PREFIX = 'todo/';
const MAX_TEXT_LENGTH = 500;

export interface Todo {
  readonly id: string;
  readonly text: string;
  readonly done: boolean;
  readonly createdBy: string;
  readonly color: string;
  readonly createdAt: number;
}

export interface AddTodoArgs {
  readonly id: string;
  readonly text: string;
  readonly createdBy: string;
  readonly color: string;
  readonly createdAt: number;
}

function todoKey(id: string): string {
  return `${TODO_PREFIX}${id}`;
}

function requireString(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new TypeError(`${name} must be a non-empty string`);
  return value;
}

function cleanText(text: unknown): string {
  const clean = requireString(typeof text === 'string' ? text.trim() : text, 'text');
  return clean.slice(0, MAX_TEXT_LENGTH);
}

async function getTodo(tx: ReadTransaction, id: string): Promise<Todo | undefined> {
  return (await tx.get(todoKey(id))) as Todo | undefined;
}

export async function listTodos(tx: ReadTransaction): Promise<Todo[]> {
  const todos = (await tx.scan({ prefix: TODO_PREFIX }).values().toArray()) as unknown as Todo[];
  return todos.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export const demoMutators = {
  async addTodo(tx: WriteTransaction, args: AddTodoArgs): Promise<void> {
    const id = requireString(args?.id, 'id');
    if (await tx.has(todoKey(id))) return;
    const todo: Todo = {
      id,
      text: cleanText(args.text),
      done: false,
      createdBy: requireString(args.createdBy, 'createdBy'),
      color: requireString(args.color, 'color'),
      createdAt: Number.isFinite(args.createdAt) ? args.createdAt : 0,
    };
    await tx.put(todoKey(id), { ...todo });
  },

  async setTodoText(tx: WriteTransaction, args: { readonly id: string; readonly text: string }): Promise<void> {
    const todo = await getTodo(tx, requireString(args?.id, 'id'));
    if (todo === undefined) return;
    await tx.put(todoKey(todo.id), { ...todo, text: cleanText(args.text) });
  },

  async setTodoDone(tx: WriteTransaction, args: { readonly id: string; readonly done: boolean }): Promise<void> {
    const todo = await getTodo(tx, requireString(args?.id, 'id'));
    if (todo === undefined) return;
    await tx.put(todoKey(todo.id), { ...todo, done: args.done === true });
  },

  async deleteTodo(tx: WriteTransaction, args: { readonly id: string }): Promise<void> {
    await tx.del(todoKey(requireString(args?.id, 'id')));
  },

  async clearCompleted(tx: WriteTransaction): Promise<void> {
    for (const todo of await listTodos(tx)) if (todo.done) await tx.del(todoKey(todo.id));
  },
} satisfies MutatorDefs;

export type DemoMutators = typeof demoMutators;
