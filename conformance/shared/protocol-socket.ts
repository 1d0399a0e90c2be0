import type WebSocket from 'ws';
import { decodeDownstream, encodeUpstream, InvalidMessageError } from '../../src/protocol';
import type { Downstream, ErrorMessage, Upstream } from '../../src/protocol';
import { CheckFailure } from './check-failure';
import type { ConformanceEnvironment } from './environment';

/** One text frame from the server: decoded when valid, else the reason it is not. */
export interface Frame {
  readonly text: string;
  readonly message?: Downstream;
  readonly invalid?: string;
}

export interface CloseInfo {
  readonly code: number;
  readonly reason: string;
}

export interface WaitOptions {
  /** When false (the default) an error frame arriving during the wait fails it at once. */
  readonly allowErrors?: boolean;
}

const SHOWN_FRAMES = 5;
const SHOWN_FRAME_CHARS = 300;

/**
 * A raw socket to the server that validates and records every frame it gets
 * and lets a check wait — always with a deadline — for a condition over them.
 */
export class ProtocolSocket {
  readonly frames: Frame[] = [];
  closed: CloseInfo | undefined;
  private readonly listeners = new Set<() => void>();
  /** Error frames before this index were expected or already reported. */
  private errorCursor = 0;

  private constructor(
    private readonly ws: WebSocket,
    private readonly env: ConformanceEnvironment,
    private readonly timeoutMs: number,
    readonly label: string,
    private readonly onFrame: ((frame: Frame) => void) | undefined,
  ) {
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? null : data.toString();
      const frame = text === null ? { text: '<binary frame>', invalid: 'binary frame; the protocol uses text frames only' } : parseFrame(text);
      this.frames.push(frame);
      this.onFrame?.(frame);
      this.notify();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.notify();
    });
    ws.on('error', () => {
      // 'close' follows; the error itself is reported through the wait that notices the close.
    });
  }

  /** Opens a socket; fails when the server refuses the upgrade, errors or does not answer in time. */
  static open(
    env: ConformanceEnvironment,
    url: string,
    protocol: string | undefined,
    timeoutMs: number,
    label: string,
    /** Called for every frame as it arrives, before any waiter looks at it. */
    onFrame?: (frame: Frame) => void,
  ): Promise<ProtocolSocket> {
    const ws = env.openSocket(url, protocol);
    const socket = new ProtocolSocket(ws, env, timeoutMs, label, onFrame);
    return new Promise((resolve, reject) => {
      const timer = env.clock.setTimeout(() => {
        ws.terminate();
        reject(new CheckFailure(`${label}: the WebSocket upgrade did not complete within ${timeoutMs} ms`));
      }, timeoutMs);
      const finish = (outcome: () => void) => {
        env.clock.clearTimeout(timer);
        outcome();
      };
      ws.once('open', () => finish(() => resolve(socket)));
      ws.once('unexpected-response', (_request, response) => {
        finish(() =>
          reject(
            new CheckFailure(
              `${label}: the server refused the WebSocket upgrade`,
              'HTTP 101, then protocol frames (connect errors come as an error frame after the upgrade)',
              `HTTP ${response.statusCode ?? '?'}`,
            ),
          ),
        );
        response.resume();
        ws.terminate();
      });
      ws.once('error', (error) => finish(() => reject(new CheckFailure(`${label}: could not connect: ${error.message}`))));
    });
  }

  get isOpen(): boolean {
    return this.closed === undefined && this.ws.readyState === this.ws.OPEN;
  }

  send(message: Upstream): void {
    this.sendText(encodeUpstream(message));
  }

  sendText(text: string): void {
    if (this.isOpen) this.ws.send(text);
  }

  close(): void {
    if (this.closed === undefined) this.ws.close();
  }

  /** Closes and waits for the close to complete. */
  async closeAndWait(): Promise<void> {
    this.close();
    await this.waitFor('the socket to close', () => (this.closed === undefined ? undefined : true), { allowErrors: true }).catch(() => this.ws.terminate());
  }

  /**
   * Resolves with the first defined result of `probe`, re-evaluated after every
   * frame. Fails at once on an invalid frame, an unexpected error frame or a
   * close (unless the probe is satisfied), and after the deadline.
   */
  waitFor<T>(what: string, probe: () => T | undefined, options: WaitOptions = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: unknown;
      const done = (outcome: () => void) => {
        this.listeners.delete(check);
        this.env.clock.clearTimeout(timer);
        outcome();
      };
      const check = () => {
        let result: T | undefined;
        try {
          const invalid = this.frames.find((frame) => frame.invalid !== undefined);
          if (invalid !== undefined) {
            throw new CheckFailure(`${this.label}: the server sent a frame that does not match the protocol: ${invalid.invalid}`, undefined, clip(invalid.text));
          }
          result = probe();
          if (result === undefined && !options.allowErrors) this.throwOnNewError(what);
        } catch (error) {
          done(() => reject(error));
          return;
        }
        if (result !== undefined) done(() => resolve(result));
        else if (this.closed !== undefined) {
          done(() => reject(this.failure(`the socket closed (code ${this.closed!.code}${this.closed!.reason ? `, ${this.closed!.reason}` : ''}) while waiting for ${what}`)));
        }
      };
      this.listeners.add(check);
      timer = this.env.clock.setTimeout(() => done(() => reject(this.failure(`timed out after ${this.timeoutMs} ms waiting for ${what}`))), this.timeoutMs);
      check();
    });
  }

  /** Waits for the next error frame (from those not yet seen) and returns it. */
  async waitForError(what: string): Promise<ErrorMessage> {
    const found = await this.waitFor(
      what,
      () => {
        for (let i = this.errorCursor; i < this.frames.length; i++) {
          const message = this.frames[i]!.message;
          if (message?.[0] === 'error') return { message, index: i };
        }
        return undefined;
      },
      { allowErrors: true },
    );
    this.errorCursor = found.index + 1;
    return found.message;
  }

  /** Waits until the server closes the socket. */
  waitForClose(what: string): Promise<CloseInfo> {
    return this.waitFor(what, () => this.closed, { allowErrors: true });
  }

  /** Number of frames of one kind received so far. */
  count(name: Downstream[0]): number {
    return this.frames.filter((frame) => frame.message?.[0] === name).length;
  }

  /** A failure quoting the last frames received, so a report shows what came instead. */
  failure(message: string, expected?: string): CheckFailure {
    return new CheckFailure(`${this.label}: ${message}`, expected, this.recentFrames());
  }

  recentFrames(): string {
    if (this.frames.length === 0) return 'no frames received';
    const shown = this.frames.slice(-SHOWN_FRAMES).map((frame) => clip(frame.text));
    return `${this.frames.length > SHOWN_FRAMES ? '… ' : ''}${shown.join(' | ')}`;
  }

  private throwOnNewError(what: string): void {
    for (let i = this.errorCursor; i < this.frames.length; i++) {
      const message = this.frames[i]!.message;
      if (message?.[0] === 'error') {
        this.errorCursor = i + 1;
        throw new CheckFailure(`${this.label}: the server answered an error while waiting for ${what}`, what, clip(this.frames[i]!.text));
      }
    }
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

function parseFrame(text: string): Frame {
  try {
    return { text, message: decodeDownstream(text) };
  } catch (error) {
    if (error instanceof InvalidMessageError) return { text, invalid: error.message };
    throw error;
  }
}

function clip(text: string): string {
  return text.length <= SHOWN_FRAME_CHARS ? text : `${text.slice(0, SHOWN_FRAME_CHARS)}…`;
}
