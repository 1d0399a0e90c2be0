import { createServer, type ServerOptions } from '../index';
import { TestClient, type TestClientOptions } from './test-client';

export const TEST_ADMIN_KEY = 'test-admin-key';

/**
 * A server on 127.0.0.1 with a free port, and helpers to connect clients and
 * call the admin API. Presence is off unless asked for: these tests count
 * the frames and versions of the sync protocol itself.
 */
export async function startTestServer(options: ServerOptions = {}) {
  const server = createServer({ adminKey: TEST_ADMIN_KEY, presence: false, ...options });
  const { url, adminURL, port } = await server.listen(0, '127.0.0.1');
  const clients: TestClient[] = [];
  return {
    server,
    url,
    port,
    adminURL,
    connect(opts: TestClientOptions): TestClient {
      const c = TestClient.connect(url, opts);
      clients.push(c);
      return c;
    },
    async admin(method: string, path: string, body?: unknown, key: string | null = TEST_ADMIN_KEY) {
      const res = await fetch(`${adminURL}${path}`, {
        method,
        headers: {
          ...(key === null ? {} : { authorization: `Bearer ${key}` }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      await server.close();
    },
  };
}

export type TestServer = Awaited<ReturnType<typeof startTestServer>>;
