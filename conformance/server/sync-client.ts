import { buildConnectURL, encodeAuthSubprotocol, PUSH_VERSION } from '../../src/protocol';
import type { Mutation } from '../../src/protocol';
import type { ReadonlyJSONValue } from '../../protocol/json';
import { CheckFailure } from '../shared/check-failure';
import { ClientView } from '../shared/client-view';
import type { ConformanceEnvironment } from '../shared/environment';
import type { Ids } from '../shared/ids';
import { ProtocolSocket } from '../shared/protocol-socket';
import type { ConformanceConfig } from './config';

export type ConformanceMutator = 'put' | 'del' | 'increment';

export interface SyncClientOptions {
  readonly roomID: string;
  readonly clientID: string;
  readonly clientGroupID: string;
  readonly token: string | undefined;
  readonly label: string;
}

export interface ConnectOverrides {
  /** Defaults to the cookie the client's view has reached. */
  readonly baseCookie?: number | null;
  /** Defaults to the highest own mutation id announced to the client. */
  readonly lmid?: number;
  readonly clientGroupID?: string;
  readonly token?: string | undefined;
}

/**
 * A protocol client as simple as the protocol allows: it connects, pushes the
 * conformance mutators and keeps a ClientView built from its pokes. Its view
 * survives reconnects, like a real client's store.
 */
export class SyncClient {
  /** Replaced when the client reconnects from another cookie than the one it has. */
  view = new ClientView();
  socket: ProtocolSocket | undefined;
  private nextMutationID = 1;
  private requestCount = 0;
  /** Only the latest socket's pokes reach the view. */
  private generation = 0;
  readonly sockets: ProtocolSocket[] = [];

  constructor(
    private readonly env: ConformanceEnvironment,
    private readonly ids: Ids,
    private readonly config: ConformanceConfig,
    private readonly origin: string,
    readonly options: SyncClientOptions,
  ) {}

  get clientID(): string {
    return this.options.clientID;
  }

  get clientGroupID(): string {
    return this.options.clientGroupID;
  }

  get label(): string {
    return this.options.label;
  }

  /** The connect URL this client would use, for checks that tamper with it. */
  connectURL(overrides: ConnectOverrides = {}, version?: number): string {
    return buildConnectURL(
      this.origin,
      {
        clientID: this.clientID,
        clientGroupID: overrides.clientGroupID ?? this.clientGroupID,
        roomID: this.options.roomID,
        baseCookie: overrides.baseCookie === undefined ? this.view.cookie : overrides.baseCookie,
        ts: Math.floor(this.env.clock.now()),
        lmid: overrides.lmid ?? this.view.lastMutationID(this.clientID),
        wsid: this.ids.wsid(),
      },
      version,
    );
  }

  /** Opens a socket without waiting for `connected` (for checks that expect a refusal). */
  async open(url: string, overrides: ConnectOverrides = {}): Promise<ProtocolSocket> {
    const token = 'token' in overrides ? overrides.token : this.options.token;
    const generation = ++this.generation;
    const socket = await ProtocolSocket.open(this.env, url, encodeAuthSubprotocol(token), this.config.timeoutMs, this.label, (frame) => {
      if (frame.message?.[0] === 'poke' && generation === this.generation) this.view.applyPoke(frame.message[1]);
    });
    this.sockets.push(socket);
    this.socket = socket;
    return socket;
  }

  /** Connects and waits for `connected` echoing this socket's wsid. */
  async connect(overrides: ConnectOverrides = {}): Promise<ProtocolSocket> {
    if (overrides.baseCookie !== undefined && overrides.baseCookie !== this.view.cookie) this.view = new ClientView(overrides.baseCookie);
    const url = this.connectURL(overrides);
    const wsid = new URL(url).searchParams.get('wsid')!;
    const socket = await this.open(url, overrides);
    const connected = await socket.waitFor('connected', () => {
      const frame = socket.frames.find((f) => f.message?.[0] === 'connected');
      return frame?.message?.[0] === 'connected' ? frame.message[1] : undefined;
    });
    if (connected.wsid !== wsid) {
      throw new CheckFailure(`${this.label}: connected does not echo the wsid of the connect request`, JSON.stringify(wsid), JSON.stringify(connected.wsid));
    }
    return socket;
  }

  /** A mutation of this client with the next id (not sent). */
  mutation(name: ConformanceMutator, args: ReadonlyJSONValue): Mutation {
    return {
      id: this.nextMutationID++,
      clientID: this.clientID,
      name: this.config.mutators[name],
      args,
      timestamp: Math.floor(this.env.clock.now()),
    };
  }

  push(mutations: readonly Mutation[]): void {
    this.requireSocket().send([
      'push',
      {
        timestamp: Math.floor(this.env.clock.now()),
        clientGroupID: this.clientGroupID,
        mutations,
        pushVersion: PUSH_VERSION,
        schemaVersion: this.config.schemaVersion,
        requestID: this.requestID(),
      },
    ]);
  }

  /** Creates and pushes one mutation in its own frame; returns it. */
  send(name: ConformanceMutator, args: ReadonlyJSONValue): Mutation {
    const mutation = this.mutation(name, args);
    this.push([mutation]);
    return mutation;
  }

  put(key: string, value: ReadonlyJSONValue): Mutation {
    return this.send('put', { key, value });
  }

  del(key: string): Mutation {
    return this.send('del', { key });
  }

  increment(key: string, delta: number): Mutation {
    return this.send('increment', { key, delta });
  }

  requestID(): string {
    return `${this.label}-${++this.requestCount}-${this.ids.suffix()}`;
  }

  /** Waits until `predicate` holds for the view; a broken poke chain fails at once. */
  waitUntil(what: string, predicate: (view: ClientView) => boolean): Promise<true> {
    const socket = this.requireSocket();
    return socket.waitFor(what, () => {
      if (this.view.chainBreaks.length > 0) {
        throw new CheckFailure(`${this.label}: a poke broke the cookie chain`, 'each poke\'s baseCookie equals the cookie the client had', this.view.chainBreaks[0]);
      }
      return predicate(this.view) ? true : undefined;
    });
  }

  /** Waits until a poke announces that this client's mutation `id` was processed. */
  async waitForAck(id: number): Promise<void> {
    await this.waitUntil(`lastMutationIDChanges announcing ${this.label}'s mutation ${id}`, (view) => view.lastMutationID(this.clientID) >= id);
  }

  /** Sends a ping and waits for the pong it earns. */
  async ping(): Promise<void> {
    const socket = this.requireSocket();
    const before = socket.count('pong');
    socket.send(['ping', {}]);
    await socket.waitFor('pong', () => (socket.count('pong') > before ? true : undefined));
  }

  async disconnect(): Promise<void> {
    await this.socket?.closeAndWait();
  }

  private requireSocket(): ProtocolSocket {
    if (this.socket === undefined) throw new Error(`${this.label} is not connected`);
    return this.socket;
  }
}
