import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Answers an upgrade request on its raw socket with an empty HTTP response of
 * `status` and ends the socket; `written` runs once the answer is written.
 */
export function refuseUpgrade(socket: Duplex, status: number, written?: () => void): void {
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`, written);
}
