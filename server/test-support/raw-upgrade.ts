import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { buildConnectURL, encodeAuthSubprotocol, type ConnectParams } from '../../src/protocol';
import { frameHeaderBytes, writeTextFrameHeader } from '../ws-frame';

/**
 * A connect request written by hand on a plain TCP socket, for what a
 * WebSocket library never does: sending frames before the 101 arrives, or
 * half-closing while the request waits. Everything the server sends is kept.
 */
export class RawUpgrade {
  private received = '';
  private readonly waiters = new Set<() => void>();
  private constructor(readonly socket: Socket) {
    socket.on('data', (data: Buffer) => {
      this.received += data.toString('latin1');
      for (const wake of this.waiters) wake();
    });
    socket.on('error', () => {});
  }

  static open(origin: string, params: ConnectParams, token: string, headers: Record<string, string> = {}): Promise<RawUpgrade> {
    const url = new URL(buildConnectURL(origin, params));
    const socket = connect(Number(url.port), url.hostname);
    const request = [
      `GET ${url.pathname}${url.search} HTTP/1.1`,
      `Host: ${url.host}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      'Sec-WebSocket-Version: 13',
      `Sec-WebSocket-Protocol: ${encodeAuthSubprotocol(token)}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      '',
      '',
    ].join('\r\n');
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.write(request);
        resolve(new RawUpgrade(socket));
      });
    });
  }

  /** Sends one text frame, masked as a client must. */
  sendText(text: string): void {
    const payload = Buffer.from(text);
    const mask = randomBytes(4);
    const header = Buffer.alloc(frameHeaderBytes(payload.length));
    writeTextFrameHeader(header, payload.length, true);
    this.socket.write(Buffer.concat([header, mask, payload.map((byte, i) => byte ^ mask[i % 4]!)]));
  }

  /** Resolves once what the server sent (response and frames, as Latin-1 text) contains `text`. */
  until(text: string, timeoutMs = 5000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!this.received.includes(text)) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`Timed out waiting for ${JSON.stringify(text)}; got ${JSON.stringify(this.received.slice(-300))}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }
}
