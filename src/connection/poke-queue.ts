import type { PatchOperation, PokeBody } from '../protocol/generated/types';

export type ApplyPoke = (socketID: number, body: PokeBody) => Promise<void>;
/** Whether the poke at the head of the queue, queued `waitedMs` ago, should wait for more pokes to merge with. */
export type HoldPoke = (body: PokeBody, waitedMs: number) => boolean;

/** Pokes of one socket that arrived back to back, to be applied as one. */
class QueuedPoke {
  readonly socketID: number;
  readonly queuedAt: number;
  readonly #first: PokeBody;
  #last: PokeBody;
  readonly #patch: PatchOperation[];
  readonly #lastMutationIDChanges: Record<string, number>;

  constructor(socketID: number, body: PokeBody, queuedAt: number) {
    this.socketID = socketID;
    this.queuedAt = queuedAt;
    this.#first = body;
    this.#last = body;
    this.#patch = [...body.patch];
    this.#lastMutationIDChanges = { ...body.lastMutationIDChanges };
  }

  /** Whether `body` continues where this one ends (else it must stay apart, to be found out of order). */
  continuedBy(socketID: number, body: PokeBody): boolean {
    return socketID === this.socketID && body.baseCookie === this.#last.cookie;
  }

  append(body: PokeBody): void {
    this.#last = body;
    for (const op of body.patch) this.#patch.push(op);
    for (const [clientID, id] of Object.entries(body.lastMutationIDChanges)) {
      this.#lastMutationIDChanges[clientID] = Math.max(id, this.#lastMutationIDChanges[clientID] ?? 0);
    }
  }

  /** One poke from the first one's base cookie to the last one's cookie. */
  get body(): PokeBody {
    if (this.#first === this.#last) return this.#first;
    return { ...this.#last, baseCookie: this.#first.baseCookie, patch: this.#patch, lastMutationIDChanges: this.#lastMutationIDChanges };
  }
}

/**
 * Applies pokes one at a time, in arrival order. Pokes that arrive while one
 * is being applied (or held) wait, and consecutive ones are merged (patches
 * in order, the highest acknowledged ids), so a burst of pokes costs one
 * application: each application replays the pending mutations on top of the
 * new state. Pokes of a socket that went away are dropped.
 */
export class PokeQueue {
  readonly #apply: ApplyPoke;
  readonly #hold: HoldPoke;
  readonly #now: () => number;
  #items: QueuedPoke[] = [];
  #running: Promise<void> | null = null;

  /** `hold`: asked before each application; a held poke waits for the next enqueue or release(). `now`: monotonic ms. */
  constructor(apply: ApplyPoke, hold: HoldPoke = () => false, now: () => number = () => 0) {
    this.#apply = apply;
    this.#hold = hold;
    this.#now = now;
  }

  enqueue(socketID: number, body: PokeBody): void {
    const last = this.#items.at(-1);
    if (last?.continuedBy(socketID, body)) last.append(body);
    else this.#items.push(new QueuedPoke(socketID, body, this.#now()));
    this.release();
  }

  /** What decides holding changed: applies what may go now. */
  release(): void {
    if (this.#running === null && this.#next() !== undefined) this.#running = this.#drain();
  }

  /** Forgets the queued (not yet started) pokes of a socket. */
  drop(socketID: number): void {
    this.#items = this.#items.filter((item) => item.socketID !== socketID);
  }

  clear(): void {
    this.#items = [];
  }

  /** Resolves once no poke is being applied (a held one is not). */
  async idle(): Promise<void> {
    while (this.#running !== null) await this.#running;
  }

  /** The poke to apply now, if any: the head of the queue, unless held. */
  #next(): QueuedPoke | undefined {
    const head = this.#items[0];
    return head === undefined || this.#hold(head.body, this.#now() - head.queuedAt) ? undefined : head;
  }

  /** Only called with a poke to apply, so it awaits before it can end. */
  async #drain(): Promise<void> {
    try {
      do {
        const item = this.#items.shift()!;
        await this.#apply(item.socketID, item.body);
      } while (this.#next() !== undefined);
    } finally {
      this.#running = null;
    }
  }
}
