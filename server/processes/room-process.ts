/**
 * The room-process side of `--room-processes` (see room-process-pool.ts):
 * takes the sockets its acceptor hands over and serves their rooms in this
 * process's main thread, where a push is read, run, stored and poked
 * without crossing threads. A watchdog thread stops the process when a
 * mutator is stuck in synchronous code, after telling the acceptor which
 * mutation it was.
 */
import { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import type { RoomsyncServer } from '../index';
import type { Logger } from '../logger';
import type { RoomWindows } from '../room-quota';
import { STUCK_REPORT_FD, type FromRoomProcess, type ToRoomProcess } from './process-protocol';
import { StuckBoard, StuckList, watchIntervalMs } from './stuck-board';
import type { WatchdogSetup } from './stuck-watchdog';

export interface RoomProcessSetup {
  /**
   * Makes the server once the mutations to skip are known; its rooms run in
   * this thread, marking their mutations on `board`, and count the rooms
   * they create in the acceptor's `windows`.
   */
  readonly start: (board: StuckBoard, stuck: StuckList, windows: RoomWindows) => RoomsyncServer;
  readonly mutatorTimeoutMs: number;
  readonly logger: Logger;
}

/** Serves until told to shut down or until the acceptor is gone; then closes the server and exits. */
export function runRoomProcess(setup: RoomProcessSetup): void {
  const send = (message: FromRoomProcess): void => {
    if (process.connected) process.send!(message);
  };
  let server: RoomsyncServer | undefined;
  let closing = false;
  const windows = new AcceptorRoomWindows(send);
  const shutDown = (why: string): void => {
    if (closing) return;
    closing = true;
    setup.logger.info('room process shutting down', { why });
    const closed = server === undefined ? Promise.resolve() : server.close();
    closed.then(
      () => process.exit(0),
      (error: unknown) => {
        setup.logger.error('room process shutdown failed', { error });
        process.exit(1);
      },
    );
  };
  process.on('message', (message: ToRoomProcess, handle: unknown) => {
    switch (message.kind) {
      case 'config': {
        if (server !== undefined) return;
        const board = new StuckBoard();
        // A heartbeat for the watchdog: it stops while a mutator holds the thread.
        setInterval(() => board.beat(), watchIntervalMs(setup.mutatorTimeoutMs)).unref();
        const started = setup.start(board, new StuckList(message.stuck), windows);
        server = started;
        Promise.all([startWatchdog(board, setup.mutatorTimeoutMs, setup.logger), started.start()]).then(
          () => send({ kind: 'ready' }),
          (error: unknown) => {
            setup.logger.error('room process could not start', { error });
            process.exit(1);
          },
        );
        return;
      }
      case 'upgrade': {
        const socket = handle as Socket | undefined;
        if (socket === undefined) return;
        send({ kind: 'received', id: message.id });
        socket.once('close', () => send({ kind: 'closed', id: message.id }));
        if (server === undefined || closing) return void socket.destroy();
        // As Node's HTTP server sets its sockets (the acceptor's setting does not travel with the socket).
        socket.setNoDelay(true);
        const req = new IncomingMessage(socket);
        req.method = message.method;
        req.url = message.url;
        req.headers = message.headers;
        server.handleUpgrade(req, socket, Buffer.from(message.head, 'base64'));
        return;
      }
      case 'admin': {
        if (server === undefined) return send({ kind: 'admin-reply', id: message.id, status: 503, json: { error: 'Room process not ready' } });
        void server.adminRequest(message.method, message.path, message.body).then((reply) => send({ kind: 'admin-reply', id: message.id, ...reply }));
        return;
      }
      case 'taken':
        return windows.answered(message.id, message.refused);
      case 'shutdown':
        return shutDown('asked by the acceptor');
    }
  });
  // The acceptor is gone (it exited, or was killed): nobody can reach this process any more.
  process.on('disconnect', () => {
    windows.refuseAll();
    shutDown('the acceptor is gone');
  });
  process.on('SIGTERM', () => shutDown('SIGTERM'));
  process.on('SIGINT', () => {}); // Ctrl+C reaches the whole process group: the acceptor decides.
  send({ kind: 'hello' });
}

/** The acceptor's windows of rooms created per user and per address, shared by every room process. */
class AcceptorRoomWindows implements RoomWindows {
  private nextID = 0;
  private readonly pending = new Map<number, (refused: string | undefined) => void>();

  constructor(private readonly send: (message: FromRoomProcess) => void) {}

  take(userID: string, address: string): Promise<(() => void) | string> {
    // Without its acceptor this process is shutting down: it creates no more rooms.
    if (!process.connected) return Promise.resolve('the server is restarting');
    const id = ++this.nextID;
    return new Promise((resolve) => {
      this.pending.set(id, (refused) => resolve(refused ?? (() => this.send({ kind: 'give-back', id }))));
      this.send({ kind: 'take', id, userID, address });
    });
  }

  answered(id: number, refused: string | undefined): void {
    this.pending.get(id)?.(refused);
    this.pending.delete(id);
  }

  /** The acceptor is gone: no answer will come. */
  refuseAll(): void {
    for (const answer of this.pending.values()) answer('the server is restarting');
    this.pending.clear();
  }
}

/**
 * Starts the watchdog thread; resolves once it watches. From the sources it sits
 * beside this file and the worker bootstrap in ../engine; in the package's
 * flat dist/ both beside this chunk (see tsdown.config.ts).
 */
function startWatchdog(board: StuckBoard, mutatorTimeoutMs: number, logger: Logger): Promise<void> {
  const fromSources = import.meta.url.endsWith('.ts');
  const setup: WatchdogSetup = { board: board.buffer, mutatorTimeoutMs, reportFD: STUCK_REPORT_FD };
  const entry = new URL(fromSources ? './stuck-watchdog.ts' : './stuck-watchdog.js', import.meta.url).href;
  const worker = new Worker(new URL(fromSources ? '../engine/worker-boot.mjs' : './worker-boot.mjs', import.meta.url), { workerData: { ...setup, entry } });
  worker.unref();
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.on('error', (error) => {
      reject(error);
      // Running without it, a mutator stuck in synchronous code would hold this process for good: start again.
      logger.error('the watchdog thread of this room process failed; stopping the process', { error });
      process.exit(1);
    });
  });
}
