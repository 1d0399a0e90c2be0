import { CheckFailure } from '../shared/check-failure';
import type { ConformanceEnvironment } from '../shared/environment';
import { Ids } from '../shared/ids';
import { ProtocolSocket } from '../shared/protocol-socket';
import type { ConformanceConfig } from './config';
import { createRoom } from './room-creation';
import { SyncClient } from './sync-client';

export interface NewClientOptions {
  /** Clients given the same group name share a client group. Defaults to a group of its own. */
  readonly group?: string;
  /** Index into config.users (wraps around). */
  readonly user?: number;
  readonly label?: string;
}

/**
 * What a check works with: fresh rooms, clients, raw sockets, the config and
 * the injected environment. It remembers every socket so the runner can close
 * them all when the check ends, whatever happened.
 */
export class CheckContext {
  readonly ids: Ids;
  private readonly clients: SyncClient[] = [];
  private readonly rawSockets: ProtocolSocket[] = [];
  private readonly groupIDs = new Map<string, string>();

  constructor(
    readonly env: ConformanceEnvironment,
    readonly config: ConformanceConfig,
    /** The server's socket origin, e.g. ws://127.0.0.1:8080. */
    readonly origin: string,
    private readonly checkName: string,
    /** Every node of the server under test (origin first): new clients go to each in turn. */
    readonly origins: readonly string[] = [origin],
  ) {
    this.ids = new Ids(env.randomBytes);
  }

  /** A room no other check uses, created first when the config says how. */
  async newRoom(): Promise<string> {
    const slug = this.checkName.replace(/[^A-Za-z0-9]+/g, '-');
    const roomID = `${this.config.roomPrefix}-${slug}-${this.ids.suffix()}`;
    if (this.config.roomCreation !== null) await createRoom(this.env, this.config.roomCreation, roomID, this.config.timeoutMs);
    return roomID;
  }

  client(roomID: string, options: NewClientOptions = {}): SyncClient {
    const index = this.clients.length;
    const groupName = options.group ?? `solo-${index}`;
    let clientGroupID = this.groupIDs.get(groupName);
    if (clientGroupID === undefined) this.groupIDs.set(groupName, (clientGroupID = this.ids.uuid()));
    const user = this.config.users[(options.user ?? 0) % this.config.users.length]!;
    const client = new SyncClient(this.env, this.ids, this.config, this.origins[index % this.origins.length]!, {
      roomID,
      clientID: this.ids.uuid(),
      clientGroupID,
      token: user.token,
      label: options.label ?? `client ${String.fromCharCode(65 + (index % 26))}`,
    });
    this.clients.push(client);
    return client;
  }

  /** A socket to an arbitrary URL (for malformed connect requests). */
  async openRaw(url: string, protocol: string | undefined, label: string): Promise<ProtocolSocket> {
    const socket = await ProtocolSocket.open(this.env, url, protocol, this.config.timeoutMs, label);
    this.rawSockets.push(socket);
    return socket;
  }

  /** Fails when any socket of this check received a frame that breaks the protocol schemas. */
  assertAllFramesValid(): void {
    for (const socket of this.allSockets()) {
      const invalid = socket.frames.find((frame) => frame.invalid !== undefined);
      if (invalid !== undefined) {
        throw new CheckFailure(`${socket.label}: the server sent a frame that does not match the protocol: ${invalid.invalid}`, undefined, invalid.text);
      }
    }
  }

  /**
   * Fails when a poke to `client` announced a mutation id of a client outside
   * its own group (PROTOCOL.md: other receivers get `{}`).
   */
  assertOwnGroupOnly(client: SyncClient): void {
    const ownGroup = new Set(this.clients.filter((c) => c.clientGroupID === client.clientGroupID).map((c) => c.clientID));
    for (const changes of client.view.lastMutationIDChanges) {
      const foreign = Object.keys(changes).filter((clientID) => !ownGroup.has(clientID));
      if (foreign.length > 0) {
        const names = foreign.map((id) => this.clients.find((c) => c.clientID === id)?.label ?? id);
        throw new CheckFailure(
          `${client.label} was told the last mutation ids of ${names.join(', ')}, not in its client group`,
          'lastMutationIDChanges only for clients of the receiving client group ({} for the others)',
          JSON.stringify(changes),
        );
      }
    }
  }

  /** Fails when any client of this check saw a poke that did not follow from its cookie. */
  assertChainsUnbroken(): void {
    for (const client of this.clients) {
      const broken = client.view.chainBreaks[0];
      if (broken !== undefined) {
        throw new CheckFailure(`${client.label}: a poke broke the cookie chain`, "each poke's baseCookie equals the cookie the client had", broken);
      }
    }
  }

  /** Closes every socket the check opened. */
  async closeAll(): Promise<void> {
    await Promise.all(this.allSockets().map((socket) => socket.closeAndWait()));
  }

  private allSockets(): ProtocolSocket[] {
    return [...this.rawSockets, ...this.clients.flatMap((client) => client.sockets)];
  }
}
