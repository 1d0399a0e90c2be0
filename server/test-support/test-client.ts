import { WebSocket } from 'ws';
import {
  buildConnectURL,
  decodeDownstream,
  encodeAuthSubprotocol,
  type ConnectParams,
  type Downstream,
  type Mutation,
  type PokeBody,
} from '../../src/protocol';

let counter = 0;
const CLOSE_HANDSHAKE_MS = 1000;

export function uniqueID(prefix: string): string {
  return `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
}

export function newWsid(): string {
  return (`w${++counter}`.padEnd(21, '_') + 'x'.repeat(21)).slice(0, 21);
}

export interface TestClientOptions {
  readonly roomID: string;
  readonly clientID?: string;
  readonly clientGroupID?: string;
  readonly baseCookie?: number | null;
  readonly lmid?: number;
  readonly token?: string;
  readonly path?: string;
}

/**
 * A bare protocol client over `ws`, for tests and benchmarks: records every
 * frame, tracks its cookie and state from pokes, and waits for conditions.
 */
export class TestClient {
  readonly messages: Downstream[] = [];
  readonly clientID: string;
  readonly clientGroupID: string;
  cookie: number | null = null;
  lmid = 0;
  readonly state = new Map<string, unknown>();
  closeCode: number | undefined;
  /** Pokes whose baseCookie did not match: a correct server sends none. */
  readonly outOfOrder: string[] = [];
  private nextMutationID = 1;
  private waiters: (() => void)[] = [];
  private constructor(
    readonly ws: WebSocket,
    ids: { clientID: string; clientGroupID: string },
  ) {
    this.clientID = ids.clientID;
    this.clientGroupID = ids.clientGroupID;
    ws.on('message', (data) => {
      const message = decodeDownstream(data.toString());
      this.messages.push(message);
      if (message[0] === 'poke') this.applyPoke(message[1]);
      this.wake();
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      this.wake();
    });
  }

  static connect(origin: string, options: TestClientOptions): TestClient {
    const params: ConnectParams = {
      clientID: options.clientID ?? uniqueID('client'),
      clientGroupID: options.clientGroupID ?? uniqueID('group'),
      roomID: options.roomID,
      baseCookie: options.baseCookie ?? null,
      ts: 1,
      lmid: options.lmid ?? 0,
      wsid: newWsid(),
    };
    let url = buildConnectURL(origin, params);
    if (options.path !== undefined) url = url.replace('/api/sync/v1/connect', options.path);
    const protocol = encodeAuthSubprotocol(options.token ?? 'test-user');
    const ws = new WebSocket(url, protocol === undefined ? [] : [protocol]);
    ws.on('error', () => {});
    const client = new TestClient(ws, params);
    client.cookie = params.baseCookie;
    client.lmid = params.lmid;
    client.nextMutationID = params.lmid + 1;
    return client;
  }

  get pokes(): PokeBody[] {
    return this.messages.flatMap((m) => (m[0] === 'poke' ? [m[1]] : []));
  }

  get errors(): [string, string][] {
    return this.messages.flatMap((m) => (m[0] === 'error' ? [[m[1], m[2]] as [string, string]] : []));
  }

  get closed(): boolean {
    return this.closeCode !== undefined;
  }

  /** Resolves when `predicate` holds (checked after every frame and on close). */
  async until(predicate: () => boolean, what = 'condition', timeoutMs = 5000): Promise<void> {
    if (predicate()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Timed out waiting for ${what}; got ${JSON.stringify(this.messages).slice(-500)}`)), timeoutMs);
      const check = () => {
        if (predicate()) {
          clearTimeout(timer);
          resolve();
        } else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }

  connected(): Promise<void> {
    return this.until(() => this.messages.some((m) => m[0] === 'connected'), 'connected');
  }

  /** Waits for the connection and its catch-up poke (sent when the client is behind). */
  async ready(): Promise<void> {
    await this.connected();
    await this.until(() => this.pokes.length > 0, 'catch-up poke');
  }

  sendRaw(data: string | Buffer, binary = false): void {
    this.ws.send(data, { binary });
  }

  mutation(name: string, args: unknown, id = this.nextMutationID++, clientID = this.clientID): Mutation {
    return { id, clientID, name, args: args as Mutation['args'], timestamp: 1 };
  }

  push(mutations: readonly Mutation[], clientGroupID = this.clientGroupID, requestID = uniqueID('req')): string {
    this.ws.send(
      JSON.stringify(['push', { timestamp: 1, clientGroupID, mutations, pushVersion: 1, schemaVersion: '1', requestID }]),
    );
    return requestID;
  }

  /** Pushes one mutation and returns its id. */
  mutate(name: string, args: unknown): number {
    const m = this.mutation(name, args);
    this.push([m]);
    return m.id;
  }

  acked(id: number): Promise<void> {
    return this.until(() => this.lmid >= id, `ack of mutation ${id}`);
  }

  /** Closes with the handshake; a peer that does not answer within a second is cut off. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.ws.close();
    await this.until(() => this.closed, 'close', CLOSE_HANDSHAKE_MS).catch(() => {
      this.ws.terminate();
      return this.until(() => this.closed, 'terminate');
    });
  }

  private applyPoke(poke: PokeBody): void {
    if (poke.baseCookie !== this.cookie) {
      this.outOfOrder.push(`poke from ${poke.baseCookie} while at ${this.cookie}`);
      return;
    }
    for (const op of poke.patch) {
      if (op.op === 'clear') this.state.clear();
      else if (op.op === 'del') this.state.delete(op.key);
      else this.state.set(op.key, op.value);
    }
    this.cookie = poke.cookie;
    const own = poke.lastMutationIDChanges[this.clientID];
    if (own !== undefined && own > this.lmid) this.lmid = own;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
