import type { Socket } from 'node:net';

/** The libuv stream under a net.Socket (Node keeps it in `_handle`; no public API stops its reads). */
interface StreamHandle {
  reading: boolean;
  readStop(): number;
}

/**
 * Stops this process reading `socket`, for good, and returns the bytes it had
 * read that nobody consumed. A socket handed to another process with keepOpen is still
 * read here otherwise: both processes poll the one file descriptor, and a
 * frame the client sends once it is upgraded may land in this process's
 * buffer and be lost with it.
 */
export function stopReading(socket: Socket): Buffer {
  const unread: Buffer[] = [];
  // Drained before the reads stop: read() may start them again.
  for (let chunk = socket.read() as Buffer | null; chunk !== null; chunk = socket.read() as Buffer | null) unread.push(chunk);
  const handle = (socket as unknown as { _handle?: StreamHandle | null })._handle;
  if (handle && handle.reading) {
    handle.reading = false;
    handle.readStop();
  }
  return Buffer.concat(unread);
}
