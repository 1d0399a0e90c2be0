import { createConnection, createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { afterEach, expect, it } from 'vitest';
import { stopReading } from './stop-reading';

const opened: Socket[] = [];
const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.destroy();
  for (const s of servers.splice(0)) s.close();
});

/** Both ends of one loopback TCP connection, the accepted one paused as the HTTP server leaves an upgraded socket. */
async function socketPair(): Promise<{ accepted: Socket; client: Socket }> {
  const server = createServer();
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  const client = createConnection(port, '127.0.0.1');
  const [accepted] = (await once(server, 'connection')) as [Socket];
  opened.push(client, accepted);
  return { accepted, client };
}

/** Long enough for loopback bytes to arrive and be read, were the socket still reading. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

it('returns what was read and not consumed, then reads nothing more from the kernel: later bytes are left for the process the socket goes to', async () => {
  const { accepted, client } = await socketPair();
  accepted.on('readable', () => {});
  client.write('early');
  await once(accepted, 'readable');
  accepted.removeAllListeners('readable');

  expect(stopReading(accepted).toString()).toBe('early');
  client.write('late');
  await tick();
  expect(accepted.bytesRead).toBe('early'.length);
  expect(accepted.readableLength).toBe(0);
  expect(stopReading(accepted).length).toBe(0);
});
