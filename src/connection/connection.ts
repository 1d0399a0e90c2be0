import { REFLECT_PUSH_DELAY_MS } from '../../protocol/constants';
import type { LogLevel } from '../logging/log-sink';
import { silentLogger, type Logger } from '../logging/logger';
import { ConnectionMetrics } from '../metrics/connection-metrics';
import { noopMetrics, type Metrics } from '../metrics/metrics';
import { decodeDownstream, encodeUpstream } from '../protocol/codec';
import { buildConnectURL, encodeAuthSubprotocol } from '../protocol/connect-request';
import type { Mutation, PokeBody, PullResponseBody } from '../protocol/generated/types';
import type { Upstream } from '../protocol/messages';
import { InvalidMessageError } from '../protocol/protocol-error';
import { obtainToken, type AuthOption } from './auth';
import type { ConnectionEffect } from './effects';
import type { ConnectionEnvironment } from './environment';
import {
  ClientClosedError,
  ClientGroupUnknownError,
  ConnectionError,
  PokeError,
  PullError,
  PushError,
  TimeoutError,
  UnexpectedBaseCookieError,
} from './errors';
import type { ConnectionEvent, TimerName } from './events';
import { NamedTimers } from './named-timers';
import { PokeQueue } from './poke-queue';
import { PullRequests } from './pull-requests';
import { nextPushFrame } from './push-batches';
import type { PushEnvelope } from './push-frame';
import { DEFAULT_PUSH_LIMITS, type PushLimits } from './push-limits';
import { Pusher } from './pusher';
import { randomID } from './random-id';
import { NORMAL_CLOSURE, SOCKET_OPEN, type SocketLike } from './socket';
import { initialState, type ConnectionState, type Phase } from './state';
import type { SyncTarget } from './sync-target';
import { transition } from './transition';

export interface UpdateNeededReason {
  readonly type: 'VersionNotSupported';
}

export interface ConnectionOptions {
  /** ws:// or wss:// origin of the sync server. */
  readonly socketOrigin: string;
  readonly clientID: string;
  readonly clientGroupID: string;
  readonly roomID: string;
  readonly schemaVersion: string;
  /** @default undefined (no token: the subprotocol is omitted) */
  readonly auth?: AuthOption;
  readonly syncTarget: SyncTarget;
  readonly environment: ConnectionEnvironment;
  /** @default a logger that writes nothing */
  readonly logger?: Logger;
  /** @default metrics that go nowhere */
  readonly metrics?: Metrics;
  /** Wait before pushing after a local mutation; 0 sends in the same microtask batch. @default REFLECT_PUSH_DELAY_MS */
  readonly pushDelayMs?: number;
  /** Largest push frames to send (what every server accepts). @default DEFAULT_PUSH_LIMITS */
  readonly pushLimits?: PushLimits;
  readonly onOnlineChange?: (online: boolean) => void;
  readonly onUpdateNeeded?: (reason: UpdateNeededReason) => void;
  readonly onClientStateNotFound?: () => void;
}

/** A poke that leaves at most this many pending mutations to replay is never held back. */
export const POKE_HOLD_MIN_REPLAYS = 1000;
/** How long pokes may wait for a backlog to drain before they go in as soon as they acknowledge half of what is left. */
export const POKE_HOLD_MAX_MS = 10_000;

/** Ends of an attempt that are not connect errors (for the last-connect-error metric). */
const NOT_CONNECT_ERRORS: ReadonlySet<string> = new Set(['Hidden', 'ClientClosed', 'ClientDisconnected']);

interface OpenSocket {
  readonly id: number;
  readonly socket: SocketLike;
  readonly logger: Logger;
}

/**
 * The run loop around the pure state machine: feeds it events (one at a time,
 * in order), performs its effects with the injected environment, and carries
 * the data path: pushes, pokes and recovery pulls.
 * Pushing is the Pusher's (one frame per flush, resuming after the last sent).
 */
export class Connection {
  readonly #options: ConnectionOptions;
  readonly #env: ConnectionEnvironment;
  readonly #logger: Logger;
  readonly #metrics: ConnectionMetrics;
  readonly #timers: NamedTimers<TimerName>;
  readonly #pokes: PokeQueue;
  readonly #pulls: PullRequests;
  readonly #pusher: Pusher;
  readonly #unsubscribes: (() => void)[] = [];
  #state: ConnectionState;
  #events: ConnectionEvent[] = [];
  #dispatching = false;
  #socket: OpenSocket | null = null;
  #nextRetryAt: number | undefined;
  readonly #stateListeners = new Set<(state: ConnectionState) => void>();

  constructor(options: ConnectionOptions) {
    this.#options = options;
    this.#env = options.environment;
    this.#logger = (options.logger ?? silentLogger).withContext('clientID', options.clientID).withContext('roomID', options.roomID);
    this.#metrics = new ConnectionMetrics(options.metrics ?? noopMetrics);
    this.#timers = new NamedTimers(this.#env.timers);
    this.#pokes = new PokeQueue(
      (socketID, body) => this.#applyPoke(socketID, body),
      (body, waitedMs) => this.#holdPoke(body, waitedMs),
      () => this.#env.clock.monotonicNow(),
    );
    this.#pulls = new PullRequests(this.#env.timers, (socketID) => {
      if (this.#isCurrent(socketID)) this.#dispatch({ type: 'disconnect', error: new TimeoutError('PullTimeout') });
    });
    this.#pusher = new Pusher({
      syncTarget: options.syncTarget,
      clock: this.#env.clock,
      timers: this.#env.timers,
      random: this.#env.random,
      clientGroupID: options.clientGroupID,
      schemaVersion: options.schemaVersion,
      pushDelayMs: options.pushDelayMs ?? REFLECT_PUSH_DELAY_MS,
      ...(options.pushLimits === undefined ? {} : { limits: options.pushLimits }),
      onSettled: () => this.#pokes.release(),
      channel: () => {
        const socket = this.#socket;
        if (this.#state.phase !== 'connected' || socket === null) return null;
        return {
          logger: socket.logger,
          sendPush: (text, logger) => this.#sendText({ ...socket, logger }, 'push', text),
          bufferedBytes: () => socket.socket.bufferedAmount ?? 0,
        };
      },
    });
    this.#state = initialState(this.#env.visibility.visible, this.#env.network.online);
    this.#unsubscribes.push(
      this.#env.visibility.subscribe((visible) => this.#dispatch({ type: 'visibility', visible })),
      this.#env.network.subscribe((online) => this.#dispatch({ type: 'network', online })),
      options.syncTarget.onLocalMutation(() => this.#pusher.schedule()),
    );
  }

  /** Starts connecting (when the page is visible). */
  start(): void {
    this.#dispatch({ type: 'start' });
  }

  /** Connects now: skips a back-off wait and resumes after the re-authentication cap. */
  reconnect(): void {
    this.#dispatch({ type: 'reconnect' });
  }

  /** Goes offline (closes the socket, stops retrying) until reconnect(). */
  disconnect(): void {
    this.#dispatch({ type: 'userDisconnect' });
  }

  /** Closes the socket for good and rejects whatever waits on it. */
  close(): void {
    this.#dispatch({ type: 'close' });
  }

  /** The store has no state for this client: stop syncing and tell the app. */
  clientStateNotFound(): void {
    this.#dispatch({ type: 'clientStateNotFound' });
  }

  get phase(): Phase {
    return this.#state.phase;
  }

  /** True after a successful connect, false after a failure or disconnect. */
  get online(): boolean {
    return this.#state.online;
  }

  get state(): ConnectionState {
    return this.#state;
  }

  /** While waiting out a back-off: when the next attempt starts (clock.now() milliseconds). */
  get nextRetryAt(): number | undefined {
    return this.#state.waiting === 'backoff' ? this.#nextRetryAt : undefined;
  }

  /** Called after every event that changed the state. */
  onStateChange(listener: (state: ConnectionState) => void): () => void {
    this.#stateListeners.add(listener);
    return () => this.#stateListeners.delete(listener);
  }

  /** A mutation-recovery pull for `clientGroupID` over the socket. Rejects with PullError ('Failed to pull'). */
  pull(clientGroupID: string, cookie: number | null): Promise<PullResponseBody> {
    const socket = this.#socket;
    if (this.#state.phase !== 'connected' || socket === null) {
      const kind = this.#state.phase === 'closed' ? 'ClientClosed' : 'NotConnected';
      return Promise.reject(new PullError(kind));
    }
    const requestID = randomID(this.#env.random);
    const answer = this.#pulls.start(requestID, socket.id, clientGroupID);
    if (!this.#send(socket, ['pull', { clientGroupID, cookie, requestID }])) {
      this.#pulls.fail(requestID, new PullError('AbruptClose'));
    }
    return answer;
  }

  /**
   * Mutation recovery: pushes another client group's mutations (a tab that
   * closed before pushing them) over the socket, under that group's id and
   * schema version, in as many frames as the push limits need. Throws
   * PushError ('Failed to push') when not connected or a send fails.
   */
  pushFor(clientGroupID: string, schemaVersion: string, mutations: readonly Mutation[]): void {
    const socket = this.#socket;
    if (this.#state.phase !== 'connected' || socket === null) {
      throw new PushError({ cause: new ConnectionError(this.#state.phase === 'closed' ? 'ClientClosed' : 'NotConnected', 'Not connected') });
    }
    const limits = this.#options.pushLimits ?? DEFAULT_PUSH_LIMITS;
    for (let start = 0; start < mutations.length; ) {
      const envelope: PushEnvelope = { timestamp: this.#env.clock.now(), clientGroupID, schemaVersion, requestID: randomID(this.#env.random) };
      const { batch, frame } = nextPushFrame(mutations, start, envelope, limits);
      if (!this.#sendText(socket, 'push', frame)) throw new PushError();
      start = batch.next;
    }
  }

  #dispatch(event: ConnectionEvent): void {
    this.#events.push(event);
    if (this.#dispatching) return;
    this.#dispatching = true;
    try {
      for (let next = this.#events.shift(); next !== undefined; next = this.#events.shift()) {
        const before = this.#state;
        const { state, effects } = transition(before, next, this.#env.clock.monotonicNow(), this.#env.random);
        this.#state = state;
        for (const effect of effects) this.#perform(effect);
        if (state !== before) this.#notifyState(state);
      }
    } finally {
      this.#dispatching = false;
    }
  }

  #perform(effect: ConnectionEffect): void {
    switch (effect.type) {
      case 'fetchToken':
        obtainToken(this.#options.auth).then(
          (token) => this.#dispatch({ type: 'tokenObtained', requestID: effect.requestID, token }),
          (error: unknown) => this.#dispatch({ type: 'tokenFailed', requestID: effect.requestID, error }),
        );
        return;
      case 'openSocket':
        void this.#openSocket(effect.socketID, effect.token);
        return;
      case 'closeSocket':
        this.#closeSocket(effect.socketID, effect.reason);
        return;
      case 'sendPing':
        if (this.#socket?.id === effect.socketID) this.#send(this.#socket, ['ping', {}]);
        return;
      case 'startTimer':
        if (effect.name === 'backoff') this.#nextRetryAt = this.#env.clock.now() + effect.delayMs;
        this.#timers.start(effect.name, effect.delayMs, () => this.#dispatch({ type: 'timer', name: effect.name }));
        return;
      case 'cancelTimer':
        this.#timers.cancel(effect.name);
        return;
      case 'connected':
        this.#pusher.reset();
        this.#metrics.connected(effect.timeToConnectMs);
        this.#pusher.schedule();
        return;
      case 'disconnected':
        this.#pokes.drop(effect.socketID);
        this.#pulls.failSocket(effect.socketID, effect.error);
        this.#pusher.reset();
        return;
      case 'connectFailed':
        if (!NOT_CONNECT_ERRORS.has(effect.error.kind)) {
          this.#metrics.connectFailed(effect.error.kind);
        }
        return;
      case 'poke':
        this.#pusher.acknowledged(effect.body.lastMutationIDChanges);
        this.#pokes.enqueue(effect.socketID, effect.body);
        return;
      case 'pullResponse':
        if (!this.#pulls.answer(effect.body)) {
          this.#logger.info?.(`Ignoring a pull response nobody waits for (requestID ${effect.body.requestID})`);
        }
        return;
      case 'onlineChange':
        this.#callback('onOnlineChange', () => this.#options.onOnlineChange?.(effect.online));
        return;
      case 'halted':
        (effect.reason === 'ClientDisconnected' ? this.#logger.info : this.#logger.error)?.(`Stopped connecting: ${effect.reason}`, effect.error);
        return;
      case 'updateNeeded':
        this.#callback('onUpdateNeeded', () => this.#options.onUpdateNeeded?.({ type: 'VersionNotSupported' }));
        return;
      case 'clientGroupUnknown': {
        const error = new ClientGroupUnknownError(this.#options.clientGroupID);
        this.#logger.error?.(error.message);
        void Promise.resolve(this.#options.syncTarget.disableClientGroup?.()).catch((cause: unknown) =>
          this.#logger.error?.('Failed to disable the client group', cause),
        );
        return;
      }
      case 'clientStateNotFound':
        this.#callback('onClientStateNotFound', () => this.#options.onClientStateNotFound?.());
        return;
      case 'closed':
        this.#pulls.failAll(new ClientClosedError());
        this.#pokes.clear();
        this.#timers.cancelAll();
        for (const unsubscribe of this.#unsubscribes.splice(0)) unsubscribe();
        return;
      case 'log':
        this.#log(effect.level, effect.message, effect.details);
        return;
    }
  }

  async #openSocket(socketID: number, token: string | undefined): Promise<void> {
    // A poke being applied may still move the cookie: connect from where it ends.
    await this.#pokes.idle();
    if (!this.#isCurrent(socketID)) return;
    const { syncTarget } = this.#options;
    const wsid = randomID(this.#env.random);
    const url = buildConnectURL(this.#options.socketOrigin, {
      clientID: this.#options.clientID,
      clientGroupID: this.#options.clientGroupID,
      roomID: this.#options.roomID,
      baseCookie: syncTarget.cookie,
      ts: this.#env.clock.monotonicNow(),
      lmid: syncTarget.lastMutationID(),
      wsid,
    });
    const logger = this.#logger.withContext('wsid', wsid);
    this.#dispatch({ type: 'socketCreated', socketID, wsid });
    logger.debug?.('Connecting to', url);
    let socket: SocketLike;
    try {
      const protocol = encodeAuthSubprotocol(token);
      socket = protocol === undefined ? new this.#env.WebSocket(url) : new this.#env.WebSocket(url, protocol);
    } catch (error) {
      logger.warn?.('Could not open a socket', error);
      this.#dispatch({ type: 'socketError', socketID });
      return;
    }
    this.#socket = { id: socketID, socket, logger };
    socket.onopen = () => this.#dispatch({ type: 'socketOpen', socketID });
    socket.onerror = () => this.#dispatch({ type: 'socketError', socketID });
    socket.onclose = (event) =>
      this.#dispatch({ type: 'socketClose', socketID, code: event.code, reason: event.reason, wasClean: event.wasClean });
    socket.onmessage = (event) => this.#receive(socketID, event.data);
  }

  #receive(socketID: number, data: unknown): void {
    let message;
    try {
      message = decodeDownstream(data as string);
    } catch (error) {
      const invalid = error instanceof InvalidMessageError ? error : new InvalidMessageError(String(error), '');
      this.#socket?.logger.warn?.('Invalid message from the server', invalid.message);
      this.#dispatch({ type: 'socketInvalidMessage', socketID, error: invalid });
      return;
    }
    if (message[0] === 'error' && message[1] === 'ClientNotFound' && this.#recoveredGroupUnknown(socketID, message[2])) return;
    this.#dispatch({ type: 'socketMessage', socketID, message });
  }

  /**
   * ClientNotFound while recovery pulls of other client groups wait on this
   * socket, and its text names one of them (or only one waits and the text
   * does not name this client's group): it is about that group, not this
   * client. Its pulls fail with that kind (recovery disables the group) and
   * this client goes on; if the server closes the socket, it reconnects.
   */
  #recoveredGroupUnknown(socketID: number, text: string): boolean {
    const own = this.#options.clientGroupID;
    const waiting = this.#pulls.groupsOn(socketID).filter((g) => g !== own);
    if (waiting.length === 0 || text.includes(own)) return false;
    const named = waiting.filter((g) => text.includes(g));
    const unknown = named.length > 0 ? named : waiting.length === 1 ? waiting : [];
    for (const clientGroupID of unknown) this.#pulls.failGroup(clientGroupID, new PullError('ClientNotFound'));
    return unknown.length > 0;
  }

  #closeSocket(socketID: number, reason: string): void {
    const current = this.#socket;
    if (current === null || current.id !== socketID) return;
    this.#socket = null;
    const { socket } = current;
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
    // Keep an error handler: some implementations throw on an error nobody listens to.
    socket.onerror = () => {};
    try {
      socket.close(NORMAL_CLOSURE, reason);
    } catch (error) {
      current.logger.debug?.('Closing the socket failed', error);
    }
  }

  #send(target: OpenSocket, message: Upstream): boolean {
    return this.#sendText(target, message[0], encodeUpstream(message));
  }

  #sendText(target: OpenSocket, name: Upstream[0], text: string): boolean {
    try {
      if (target.socket.readyState !== SOCKET_OPEN) throw new Error(`socket not open (readyState ${target.socket.readyState})`);
      target.socket.send(text);
      return true;
    } catch (cause) {
      const error = name === 'push' ? new PushError({ cause }) : new ConnectionError('AbruptClose', `Failed to send ${name}`, { cause });
      target.logger.warn?.(error.message, cause);
      this.#dispatch({ type: 'disconnect', error });
      return false;
    }
  }

  async #applyPoke(socketID: number, body: PokeBody): Promise<void> {
    if (!this.#isCurrent(socketID)) return;
    const { syncTarget } = this.#options;
    const logger = (this.#socket?.logger ?? this.#logger).withContext('requestID', body.requestID);
    if (body.baseCookie !== syncTarget.cookie) {
      this.#outOfOrder(socketID, new UnexpectedBaseCookieError(body.baseCookie, syncTarget.cookie), logger);
      return;
    }
    try {
      await syncTarget.applyPoke(body);
      logger.debug?.(`Applied poke ${body.baseCookie} → ${body.cookie}`);
    } catch (error) {
      if ((error as { kind?: unknown } | null)?.kind === 'UnexpectedBaseCookie') {
        this.#outOfOrder(socketID, new UnexpectedBaseCookieError(body.baseCookie, syncTarget.cookie), logger);
        return;
      }
      logger.error?.('Failed to apply a poke', error);
      if (this.#isCurrent(socketID)) this.#dispatch({ type: 'disconnect', error: new PokeError({ cause: error }) });
    }
  }

  /**
   * Applying a poke replays every pending mutation it leaves. While a long
   * backlog drains (acknowledgements still to come, many mutations left), pokes
   * wait and merge: up to POKE_HOLD_MAX_MS, then for as long as they would
   * leave more to replay than they acknowledge. The replays stay within about
   * the backlog once instead of growing with its square; the price is that
   * others' changes show when the drain is through (or halfway, past the cap).
   */
  #holdPoke(body: PokeBody, waitedMs: number): boolean {
    if (!this.#pusher.awaitingAcks) return false;
    const { syncTarget, clientID } = this.#options;
    const pending = syncTarget.pendingMutationCount ?? syncTarget.pendingMutations().length;
    const acknowledged = Math.max(0, (body.lastMutationIDChanges[clientID] ?? 0) - syncTarget.lastMutationID());
    const left = pending - acknowledged;
    if (left <= POKE_HOLD_MIN_REPLAYS) return false;
    return waitedMs < POKE_HOLD_MAX_MS || acknowledged < left;
  }

  #outOfOrder(socketID: number, error: UnexpectedBaseCookieError, logger: Logger): void {
    logger.info?.(error.message);
    this.#pokes.drop(socketID);
    if (this.#isCurrent(socketID)) this.#dispatch({ type: 'disconnect', error });
  }

  #isCurrent(socketID: number): boolean {
    const s = this.#state;
    return s.socketLive && s.socketID === socketID && (s.phase === 'connecting' || s.phase === 'connected');
  }

  #notifyState(state: ConnectionState): void {
    for (const listener of [...this.#stateListeners]) this.#callback('onStateChange', () => listener(state));
  }

  #callback(name: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      this.#logger.error?.(`${name} threw`, error);
    }
  }

  #log(level: LogLevel, message: string, details: unknown): void {
    const logger = this.#socket?.logger ?? this.#logger;
    const write = logger[level];
    if (write === undefined) return;
    if (details === undefined) write(message);
    else write(message, details);
  }
}
