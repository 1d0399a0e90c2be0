import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy to a local port whose network can be cut: `cut()` drops every
 * connection through it and refuses new ones until `restore()` — a network
 * blip as both ends see it.
 */
export class CutProxy {
  readonly #sockets = new Set<Socket>();
  #down = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<CutProxy> {
    let proxy: CutProxy | undefined;
    const server = createServer((client) => proxy!.#accept(client, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new CutProxy(server, (server.address() as { port: number }).port);
    return proxy;
  }

  cut(): void {
    this.#down = true;
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  restore(): void {
    this.#down = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  #accept(client: Socket, targetPort: number): void {
    if (this.#down) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.#sockets.add(socket);
      socket.pipe(other);
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        this.#sockets.delete(socket);
        other.destroy();
      });
    }
  }
}
