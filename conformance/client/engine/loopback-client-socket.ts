import WebSocket from 'ws';
import type { SocketConstructor } from '../../../src/connection/socket';

/** What one client socket did, counted on the client's side of the loopback. */
export interface ClientSocketRecord {
  /** The URL as a URL parses it (the scripted server compares it with the request it got). */
  readonly href: string;
  sent: number;
  received: number;
  opened: boolean;
  closed: boolean;
}

/**
 * The `ws` WebSocket, counting what it sends and receives so the engine knows
 * when nothing is in flight on the loopback. It behaves exactly as `ws` does:
 * it only counts. `onEvent` is told of every count.
 */
export function countingWebSocket(records: ClientSocketRecord[], onEvent: () => void): SocketConstructor {
  return class CountingWebSocket extends WebSocket {
    readonly #record: ClientSocketRecord;

    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      const record: ClientSocketRecord = { href: new URL(String(url)).href, sent: 0, received: 0, opened: false, closed: false };
      this.#record = record;
      records.push(record);
      const count = (change: () => void) => () => {
        change();
        onEvent();
      };
      // Registered before the client's own handlers, so counted before the client reacts.
      this.on('open', count(() => (record.opened = true)));
      this.on('message', count(() => record.received++));
      this.on('close', count(() => (record.closed = true)));
      this.on('error', () => {});
      onEvent();
    }

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one signature for ws's overloads
    override send(data: Parameters<WebSocket['send']>[0], optionsOrCallback?: any, callback?: any): void {
      if (this.readyState === WebSocket.OPEN) {
        this.#record.sent++;
        onEvent();
      }
      super.send(data, optionsOrCallback, callback);
    }
  } as unknown as SocketConstructor;
}
