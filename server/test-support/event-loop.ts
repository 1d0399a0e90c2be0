/** Lets the event loop turn (sockets and promises, never a timer) until `holds`; throws when it never does within 10,000 turns. */
export async function turnsUntil(holds: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !holds(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!holds()) throw new Error('condition never held');
}
