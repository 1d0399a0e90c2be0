/**
 * Which nodes sharing a storage are alive, as their beats last said (see
 * SharedStorage.beat). Until the first answer every node may be alive.
 */
export class NodeLiveness {
  #live: ReadonlySet<string> | undefined;

  /** Whether a node may still hold its clients' connections. */
  mayBeAlive(nodeID: string): boolean {
    return this.#live === undefined || this.#live.has(nodeID);
  }

  /** Takes the storage's answer; returns whether some node known alive before is not any more (or this is the first answer). */
  update(live: ReadonlySet<string>): boolean {
    const before = this.#live;
    this.#live = live;
    return before === undefined || [...before].some((id) => !live.has(id));
  }
}
