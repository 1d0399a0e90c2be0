import { EventEmitter } from 'node:events';
import type WebSocket from 'ws';
import type { ConformanceEnvironment } from './environment';
import { FakeClock } from './fake-clock';

/** A stand-in for a `ws` client socket, driven by the test. */
export class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 0;
  readonly sent: string[] = [];

  constructor(
    readonly url: string,
    readonly protocol: string | undefined,
  ) {
    super();
  }

  send(text: string): void {
    this.sent.push(text);
  }

  close(): void {
    this.serverCloses(1000, '');
  }

  terminate(): void {
    this.serverCloses(1006, '');
  }

  accept(): void {
    this.readyState = 1;
    this.emit('open');
  }

  refuse(statusCode: number): void {
    this.emit('unexpected-response', {}, { statusCode, resume: () => {} });
  }

  receive(text: string): void {
    this.emit('message', Buffer.from(text), false);
  }

  serverCloses(code: number, reason: string): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.emit('close', code, Buffer.from(reason));
  }
}

/** An environment whose sockets are FakeSockets and whose clock is a FakeClock. */
export function fakeEnvironment(): { env: ConformanceEnvironment; clock: FakeClock; sockets: FakeSocket[] } {
  const clock = new FakeClock();
  const sockets: FakeSocket[] = [];
  let counter = 0;
  const env: ConformanceEnvironment = {
    clock,
    randomBytes: (count) => Uint8Array.from({ length: count }, () => counter++ % 256),
    openSocket: (url, protocol) => {
      const socket = new FakeSocket(url, protocol);
      sockets.push(socket);
      return socket as unknown as WebSocket;
    },
    fetch: () => Promise.reject(new Error('no network in this test')),
  };
  return { env, clock, sockets };
}
