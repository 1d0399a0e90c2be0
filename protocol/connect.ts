import { Type, type Static } from '@sinclair/typebox';

/**
 * The query parameters of `GET {socketOrigin}/api/sync/v1/connect`, as the
 * strings they are on the wire (PROTOCOL.md, Connect).
 */
export const ConnectQuery = Type.Object(
  {
    clientID: Type.String({ minLength: 1 }),
    clientGroupID: Type.String({ minLength: 1 }),
    roomID: Type.String({ minLength: 1 }),
    baseCookie: Type.String({ pattern: '^(|0|[1-9][0-9]*)$', description: "'' when never synced, else a decimal cookie." }),
    ts: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', description: "The client's performance.now() at connect." }),
    lmid: Type.String({ pattern: '^(0|[1-9][0-9]*)$', description: 'Last mutation id of this client acknowledged by the server.' }),
    wsid: Type.String({ pattern: '^[A-Za-z0-9_-]{21}$', description: 'A fresh random id per socket: 21 URL-safe characters.' }),
  },
  { $id: 'ConnectQuery', title: 'ConnectQuery' },
);
export type ConnectQuery = Static<typeof ConnectQuery>;

