import type { PokeBody } from '../protocol/generated/types';

export type ApplyPoke = (socketID: number, body: PokeBody) => Promise<void>;

/** Applies pokes one at a time, in arrival order. Pokes of a socket that went away are dropped. */
export class PokeQueue {
  readonly #apply: ApplyPoke;
  #items: { socketID: number; body: PokeBody }[] = [];
  #running: Promise<void> | null = null;

  constructor(apply: ApplyPoke) {
    this.#apply = apply;
  }

  enqueue(socketID: number, body: PokeBody): void {
    this.#items.push({ socketID, body });
    this.#running ??= this.#drain();
  }

  /** Forgets the queued (not yet started) pokes of a socket. */
  drop(socketID: number): void {
    this.#items = this.#items.filter((item) => item.socketID !== socketID);
  }

  clear(): void {
    this.#items = [];
  }

  /** Resolves once no poke is being applied. */
  async idle(): Promise<void> {
    while (this.#running !== null) await this.#running;
  }

  async #drain(): Promise<void> {
    try {
      for (let item = this.#items.shift(); item !== undefined; item = this.#items.shift()) {
        await this.#apply(item.socketID, item.body);
      }
    } finally {
      this.#running = null;
    }
  }
}
