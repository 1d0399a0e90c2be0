/**
 * The demo's mutators: one module, run by the browser client (optimistically)
 * and by the reference server (authoritatively). Deterministic: ids and times
 * come in the arguments, never from Math.random or the clock.
 *
 * Authorization: only the author of an item may delete it. On the server the
 * author is who the token says (`tx.auth`), never what the arguments claim;
 * on the client the arguments say who is using the page, so both sides agree
 * and a refused delete never even flickers.
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
  /** The user id of whoever added it: the server takes it from the token. Missing on items from before. */
  readonly authorID?: string;
}

export interface AddTodoArgs {
  readonly id: string;
  readonly text: string;
  readonly createdBy: string;
  readonly color: string;
  readonly createdAt: number;
  /** Who is adding it (on the server, the token's user wins). */
  readonly authorID?: string;
}

/** Names the user a delete acts for (on the server, the token's user wins). */
export interface AsUserArgs {
  readonly authorID?: string;
}

function todoKey(id: string): string {
  return `${TODO_PREFIX}${id}`;
}

/** The user the mutation acts for: the token's on the server, the page's (from the args) on the client. */
function actingUser(tx: WriteTransaction, args: AsUserArgs | undefined): string | undefined {
  if (tx.reason === 'authoritative') return (tx as WriteTransaction & { auth?: { userID: string } }).auth?.userID;
  return typeof args?.authorID === 'string' ? args.authorID : undefined;
}

/** Items from before authors were recorded may be deleted by anyone. */
function mayDelete(todo: Todo, user: string | undefined): boolean {
  return todo.authorID === undefined || user === undefined || todo.authorID === user;
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
    const authorID = actingUser(tx, args);
    if (authorID !== undefined) Object.assign(todo, { authorID });
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

  async deleteTodo(tx: WriteTransaction, args: AsUserArgs & { readonly id: string }): Promise<void> {
    const todo = await getTodo(tx, requireString(args?.id, 'id'));
    if (todo === undefined) return;
    if (!mayDelete(todo, actingUser(tx, args))) throw new Error(`Only the author may delete item ${todo.id}`);
    await tx.del(todoKey(todo.id));
  },

  /** Deletes the acting user's completed items (and completed items without an author). */
  async clearCompleted(tx: WriteTransaction, args?: AsUserArgs): Promise<void> {
    const user = actingUser(tx, args);
    for (const todo of await listTodos(tx)) if (todo.done && mayDelete(todo, user)) await tx.del(todoKey(todo.id));
  },
} satisfies MutatorDefs;

export type DemoMutators = typeof demoMutators;
