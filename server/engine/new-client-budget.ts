/**
 * New client records a room takes from one user per window: every new client
 * id (a connect, or a push naming one) is stored for good, so without a
 * budget one token could grow a room's records, outside its size limit, at
 * the rate it can send (50,000 in 3 s). Keyed by whoever a connection's
 * new clients count for (ClientConnection.newClientBudgetKey: its user, an
 * anonymous client's address).
 */
export class NewClientBudget {
  private windowStart: number;
  private readonly taken = new Map<string, number>();

  constructor(
    readonly perWindow: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.windowStart = now();
  }

  /** Counts one new client of `key`; false when it has taken the window's budget. */
  take(key: string): boolean {
    const now = this.now();
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.taken.clear();
    }
    const n = this.taken.get(key) ?? 0;
    if (n >= this.perWindow) return false;
    this.taken.set(key, n + 1);
    return true;
  }
}

/** Rooms whose budgets a thread keeps; the least recently used go first beyond it. */
const KEPT_ROOMS = 10_000;
const byRoom = new Map<string, NewClientBudget>();

/**
 * The budget of room `roomID` in this thread. It outlives the room's engine:
 * a room that unloads when its last client leaves and loads again at the next
 * connect keeps what its users took (else leaving and coming back would reset it).
 */
export function roomNewClientBudget(roomID: string, perWindow: number, windowMs: number): NewClientBudget {
  let budget = byRoom.get(roomID);
  if (budget === undefined || budget.perWindow !== perWindow) budget = new NewClientBudget(perWindow, windowMs);
  byRoom.delete(roomID);
  byRoom.set(roomID, budget);
  if (byRoom.size > KEPT_ROOMS) byRoom.delete(byRoom.keys().next().value!);
  return budget;
}
