import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, SqliteStorage, type AuthHandler } from '../../server/index';

/** The token the fixture's auth handler refuses; every other non-empty token is a user id. */
export const REFUSED_TOKEN = 'conformance-refused-token';

export interface ReferenceServerFixture {
  /** ws://127.0.0.1:PORT */
  readonly url: string;
  /** http://127.0.0.1:PORT/api/admin */
  readonly adminURL: string;
  stop(): Promise<void>;
}

const refuseOneToken: AuthHandler = (token) => (token === undefined || token === REFUSED_TOKEN ? null : { userID: token });

/** Our reference server in-process, on a free port, storing in SQLite in a fresh temp dir. Test tooling. */
export async function startReferenceServer(options: { requireRooms?: boolean; adminKey?: string } = {}): Promise<ReferenceServerFixture> {
  const dataDir = await mkdtemp(join(tmpdir(), 'roomsync-conformance-'));
  const server = createServer({
    storage: new SqliteStorage({ path: join(dataDir, 'roomsync.sqlite') }),
    authHandler: refuseOneToken,
    ...options,
  });
  const { url, adminURL } = await server.listen(0);
  return {
    url,
    adminURL,
    async stop() {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
