/** Lets the event loop turn (sockets and promises, never a timer) until `holds`; throws when it never does within 10,000 turns. */
export async function turnsUntil(holds: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !holds(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!holds()) throw new Error('condition never held');
}

/**
 * Polls until `holds`, a state another process decides (a server node,
 * PostgreSQL's own timers), seen through its API; throws naming `what`
 * after 10 s of real time.
 */
export async function pollUntil(what: string, holds: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await holds())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
