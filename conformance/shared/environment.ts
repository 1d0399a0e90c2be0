import type WebSocket from 'ws';
import type { Clock } from './clock';

/** Everything the suites touch outside themselves; the real bindings live in node-environment.ts. */
export interface ConformanceEnvironment {
  readonly clock: Clock;
  /** Cryptographically random bytes (ids, room suffixes). */
  randomBytes(count: number): Uint8Array;
  /** Opens a raw socket; `protocol` is the Sec-WebSocket-Protocol value, if any. */
  openSocket(url: string, protocol: string | undefined): WebSocket;
  fetch(url: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<{ status: number; text(): Promise<string> }>;
}
