/**
 * Deliberately broken clients, built by wrapping ours from the outside (its
 * socket constructor, timers or options), to prove the scenarios can fail.
 */
import { RECONNECT_BACKOFF_INITIAL_MS } from '../../../protocol/constants';
import type { TimerHandle, Timers } from '../../../src/connection/environment';
import type { SocketConstructor, SocketLike } from '../../../src/connection/socket';
import type { Mutation } from '../../../src/protocol';
import type { ClientFactory } from '../factory';
import { wrapSocketConstructor } from './socket-wrappers';

export interface BrokenVariant {
  readonly name: string;
  readonly description: string;
  /** Scenarios that must fail with this variant. */
  readonly breaks: readonly string[];
  readonly wrap: (factory: ClientFactory) => ClientFactory;
}

/** Wraps the WebSocket constructor the suite injects. */
const withSocket =
  (wrap: (Base: SocketConstructor) => SocketConstructor) =>
  (factory: ClientFactory): ClientFactory =>
  (options) => factory({ ...options, environment: { ...options.environment, WebSocket: wrap(options.environment!.WebSocket!) } });

const isFrame = (text: string, name: string) => text.startsWith(`["${name}"`);

/** Re-sends, first on every socket, every mutation it ever pushed (acknowledged or not). */
const resendAcknowledged: BrokenVariant = {
  name: 'resendAcknowledged',
  description: 'prepends every mutation ever pushed to the first push of each socket',
  breaks: ['push/acknowledged-dropped', 'push/resend-unacknowledged'],
  wrap: (factory) => (options) => withSocket((Base) => resendingSocket(Base, new Map()))(factory)(options),
};

function resendingSocket(Base: SocketConstructor, everSent: Map<number, Mutation>): SocketConstructor {
  return class extends (Base as unknown as new (url: string, protocols?: string | string[]) => SocketLike) {
    #first = true;
    override send(data: string): void {
      if (!isFrame(data, 'push')) return super.send(data);
      const [name, body] = JSON.parse(data) as ['push', { mutations: Mutation[] }];
      const firstID = body.mutations[0]?.id ?? 0;
      const older = this.#first ? [...everSent.values()].filter((m) => m.id < firstID) : [];
      this.#first = false;
      for (const m of body.mutations) everSent.set(m.id, m);
      super.send(JSON.stringify([name, { ...body, mutations: [...older, ...body.mutations] }]));
    }
  } as unknown as SocketConstructor;
}

/** Connects as if it had never synced. */
const ignoreLocalCookie: BrokenVariant = {
  name: 'ignoreLocalCookie',
  description: 'rewrites baseCookie in the connect URL to empty, whatever the local cookie',
  breaks: ['handshake/reconnect-params', 'poke/out-of-order', 'push/resend-unacknowledged'],
  wrap: withSocket((Base) => wrapSocketConstructor(Base, { url: (url) => url.replace(/([?&]baseCookie=)[^&]*/, '$1') })),
};

/** Filters its ping frames out. */
const neverPings: BrokenVariant = {
  name: 'neverPings',
  description: 'drops every ping frame the client sends',
  breaks: ['ping/quiet-socket', 'ping/traffic-delays-ping', 'backoff/reset-after-connect'],
  wrap: withSocket((Base) => wrapSocketConstructor(Base, { send: (text) => (isFrame(text, 'ping') ? null : text) })),
};

/**
 * Changes the delay of the timers the client starts while it handles a socket
 * event that `during` picks (a close, an error frame…): `retime` gets the
 * delay asked for and returns the one used.
 */
const retimeDuring =
  (during: (event: string, data: unknown) => boolean, retime: (delayMs: number) => number) =>
  (factory: ClientFactory): ClientFactory =>
  (options) => {
    let inside = false;
    const around = (event: string, data: unknown, call: () => void) => {
      inside = during(event, data);
      try {
        call();
      } finally {
        inside = false;
      }
    };
    const timers = options.environment!.timers!;
    const retimed: Timers = {
      setTimeout: (callback, delayMs): TimerHandle => timers.setTimeout(callback, inside ? retime(delayMs) : delayMs),
      clearTimeout: (handle) => timers.clearTimeout(handle),
    };
    const WebSocket = wrapSocketConstructor(options.environment!.WebSocket!, { around });
    return factory({ ...options, environment: { ...options.environment, timers: retimed, WebSocket } });
  };

const isClose = (event: string) => event !== 'onmessage';

/**
 * Skips the back-off: any timer of back-off length started while the client
 * handles a close or an error frame fires at once.
 */
const noBackoff: BrokenVariant = {
  name: 'noBackoff',
  description: 'turns the back-off wait after a close or an error frame into 0 ms by wrapping the timers',
  breaks: ['backoff/golden-trace', 'backoff/reset-after-connect', 'errors/RoomNotFound-while-connecting', 'errors/InvalidPush-while-connected'],
  wrap: retimeDuring(
    (event, data) => isClose(event) || String((data as { data?: unknown }).data).startsWith('["error"'),
    (delayMs) => (delayMs >= RECONNECT_BACKOFF_INITIAL_MS ? 0 : delayMs),
  ),
};

/** Waits out the back-off after a lost connection too, as if it were an error. */
const slowReconnect: BrokenVariant = {
  name: 'slowReconnect',
  description: 'turns the short wait before reconnecting after a close into the 5 s back-off by wrapping the timers',
  breaks: ['reconnect/at-once-after-clean-close', 'reconnect/at-once-after-abrupt-close', 'push/resend-unacknowledged'],
  wrap: retimeDuring(isClose, (delayMs) => Math.max(delayMs, RECONNECT_BACKOFF_INITIAL_MS)),
};

/** Sends everything pending in one push, whatever its size (pushes of one microtask batch are merged into one frame). */
const onePush: BrokenVariant = {
  name: 'onePush',
  description: 'merges the push frames sent in one microtask batch into a single frame',
  breaks: ['push/split-to-limits-mutation-count', 'push/split-to-limits-frame-bytes'],
  wrap: withSocket((Base) => mergingSocket(Base)),
};

function mergingSocket(Base: SocketConstructor): SocketConstructor {
  return class extends (Base as unknown as new (url: string, protocols?: string | string[]) => SocketLike) {
    #held: { name: string; body: { mutations: Mutation[] } }[] = [];
    override send(data: string): void {
      if (!isFrame(data, 'push')) return super.send(data);
      const [name, body] = JSON.parse(data) as ['push', { mutations: Mutation[] }];
      if (this.#held.push({ name, body }) > 1) return;
      queueMicrotask(() => {
        const held = this.#held.splice(0);
        const mutations = held.flatMap((h) => h.body.mutations);
        super.send(JSON.stringify([name, { ...held[0]!.body, mutations }]));
      });
    }
  } as unknown as SocketConstructor;
}

/** Never learns the page is hidden. */
const ignoreVisibility: BrokenVariant = {
  name: 'ignoreVisibility',
  description: 'hides visibility changes from the client (it always sees a visible page)',
  breaks: ['visibility/hidden-disconnects', 'visibility/hidden-during-backoff', 'visibility/start-hidden'],
  wrap: (factory) => (options) =>
    factory({ ...options, environment: { ...options.environment, visibility: { visible: true, subscribe: () => () => {} } } }),
};

/** Keeps using its first token. */
const staleToken: BrokenVariant = {
  name: 'staleToken',
  description: 'the auth function is called once and its token reused forever',
  breaks: ['auth/refresh-on-Unauthorized', 'auth/refresh-on-AuthInvalidated', 'auth/retry-cap'],
  wrap: (factory) => (options) => {
    const auth = options.auth;
    let first: string | undefined;
    const once = typeof auth === 'function' ? async () => (first ??= await auth()) : auth;
    return factory({ ...options, ...(once === undefined ? {} : { auth: once }) });
  },
};

/** Never recovers another client group: drops its own recovery pushes and pulls. */
const noRecovery: BrokenVariant = {
  name: 'noRecovery',
  description: "drops every push for another client group and every pull (mutation recovery never reaches the server)",
  breaks: ['recovery/push-under-other-group', 'recovery/pull-timeout', 'recovery/unknown-group-disabled'],
  wrap: (factory) => (options) => {
    let ownGroup: string | undefined;
    const client = withSocket((Base) =>
      wrapSocketConstructor(Base, {
        send: (text) => {
          if (isFrame(text, 'pull')) return null;
          if (!isFrame(text, 'push') || ownGroup === undefined) return text;
          return (JSON.parse(text) as ['push', { clientGroupID: string }])[1].clientGroupID === ownGroup ? text : null;
        },
      }),
    )(factory)(options);
    void Promise.resolve(client.clientGroupID).then((id) => (ownGroup = id));
    return client;
  },
};

export const brokenVariants: readonly BrokenVariant[] = [
  noRecovery,
  resendAcknowledged,
  ignoreLocalCookie,
  neverPings,
  noBackoff,
  slowReconnect,
  onePush,
  ignoreVisibility,
  staleToken,
];
