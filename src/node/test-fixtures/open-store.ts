/**
 * A child process that opens one store and prints, as one JSON line, the
 * error it got ({ error, kind, message }) or { opened: true }. With a UID it
 * first gives up its privileges to that user (how a test run as root checks
 * what an ordinary user is refused).
 *
 * Usage: node --import tsx open-store.ts DATA_DIR STORE_NAME [UID]
 */
export {};

const [dataDir, storeName, uid] = process.argv.slice(2);
if (dataDir === undefined || storeName === undefined) throw new Error('usage: open-store.ts DATA_DIR STORE_NAME [UID]');
if (uid !== undefined && uid !== '') {
  process.setgid!(Number(uid));
  process.setuid!(Number(uid));
}
// Imported only now, as the user the store is opened as.
const { SqliteKvProvider } = await import('../sqlite-kv-provider');
try {
  const store = await new SqliteKvProvider({ dataDir }).open(storeName);
  await store.close();
  process.stdout.write(`${JSON.stringify({ opened: true })}\n`);
} catch (error) {
  const { name, kind, message } = error as { name?: string; kind?: string; message?: string };
  process.stdout.write(`${JSON.stringify({ error: name, kind, message })}\n`);
}
