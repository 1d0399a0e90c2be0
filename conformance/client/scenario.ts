import type { ReadonlyJSONValue as JSONValue } from '../../protocol/json';
import type { ErrorKind } from '../../src/protocol';
import type { Capability } from './capabilities';

/**
 * A client scenario: a declarative script the scripted server replays against
 * a client. Plain data (JSON-compatible), so a failing property case can be
 * printed as one and kept as a regression.
 *
 * Times are milliseconds on the fake clock, which starts at 0 when the client
 * is created. Strings "$clientID" and "$clientGroupID" anywhere in a sent
 * message (keys included) or an expected value stand for the client's ids.
 */
export interface Scenario {
  /** `family/behaviour`, e.g. `backoff/golden-trace`. */
  readonly name: string;
  /** The SPEC.md / PROTOCOL.md rule it checks. */
  readonly spec: string;
  readonly description: string;
  /** Set to skip the scenario for every client: why. Reported as skipped. */
  readonly skip?: string;
  /**
   * The extras beyond SPEC.md's public API it cannot do without (capabilities.ts):
   * skipped, with the reason, for a client that lacks one. It must list those
   * its steps call (reconnect, disconnect) and `sharedLocalStore` for an orphan;
   * an observation of an extra (an `expectClient` field, `expectCallback`) it
   * does not list is left unchecked, and reported so, for a client without it.
   */
  readonly needs?: readonly Capability[];
  readonly client?: ScenarioClient;
  readonly steps: readonly Step[];
}

export interface ScenarioClient {
  /**
   * Token source: the auth function returns `${authPrefix}-${n}` on its n-th call.
   * false: no auth option at all (the subprotocol must be omitted). @default 'token'
   */
  readonly authPrefix?: string | false;
  /** Page visibility at start (the injected visibility source, or the page's document on the public-API path). @default true */
  readonly visible?: boolean;
  /** @default '1' */
  readonly schemaVersion?: string;
  /**
   * Before the client under test starts, a tab of another build of the same
   * user and room (one more mutator, so another client group) made this many
   * `increment` mutations while offline and closed: mutations the client
   * must recover (SPEC §7.2 pull, §8). "$orphanClientID" and "$orphanGroupID"
   * stand for its ids. The scenario needs the sharedLocalStore capability.
   */
  readonly orphan?: { readonly mutations: number };
}

export type CallbackName = 'onUpdateNeeded' | 'onClientStateNotFound';

/** Every step may carry a note for the reader (shown in reports). */
interface Noted {
  readonly note?: string;
}

/** When something must happen: exactly `at` (absolute), exactly `after` ms from now, or within `within` ms from now. */
interface Timed {
  /** Exact fake-clock time. */
  readonly at?: number;
  /** Exact delay from the clock when the step starts (for scripts whose earlier waits had a range). */
  readonly after?: number;
  /** Max wait when neither `at` nor `after` is given. @default 0 */
  readonly within?: number;
}

/** Waits (up to its time) for the client to open a socket; checks the URL and subprotocol. */
export interface ExpectConnect extends Noted, Timed {
  readonly step: 'expectConnect';
  /** Query parameters that must have exactly these values; "$openedAt" stands for the fake-clock time of the connect. */
  readonly params?: Readonly<Record<string, string>>;
  /** The Sec-WebSocket-Protocol; null: none. Unchecked when absent. */
  readonly protocol?: string | null;
  /** Complete the upgrade; false leaves it pending (the client sees no open). @default true */
  readonly accept?: boolean;
}

export type Step =
  | ExpectConnect
  | ({ readonly step: 'sendConnected'; readonly wsid?: string } & Noted)
  | ({ readonly step: 'send'; readonly message: JSONValue } & Noted)
  | ({ readonly step: 'sendText'; readonly text: string } & Noted)
  | ({ readonly step: 'sendError'; readonly kind: ErrorKind; readonly message?: string } & Noted)
  | ({ readonly step: 'dropSocket'; readonly clean?: boolean } & Noted)
  | ({ readonly step: 'advance'; readonly ms: number } & Noted)
  | ({ readonly step: 'setVisible'; readonly visible: boolean } & Noted)
  /** The server answers every ping with a pong at once, and pings no longer count as frames. */
  | ({ readonly step: 'autoPong'; readonly on: boolean } & Noted)
  /** The app calls the mutator `times` times (all at once, then waits for them). */
  | ({ readonly step: 'mutate'; readonly name: string; readonly args: JSONValue; readonly times?: number } & Noted)
  /**
   * From now on the server refuses, like a server with these limits, any push
   * frame with more mutations or more UTF-8 bytes: an InvalidPush error frame,
   * then it closes the socket. The frame is still checked and recorded.
   */
  | ({ readonly step: 'serverLimits'; readonly maxMutationsPerPush: number; readonly maxFrameBytes: number } & Noted)
  /** The app calls reconnect() (the scenario needs that capability). */
  | ({ readonly step: 'reconnect' } & Noted)
  /** The app calls disconnect() (the scenario needs that capability). */
  | ({ readonly step: 'disconnect' } & Noted)
  /** The app calls close() (and waits for it). */
  | ({ readonly step: 'close' } & Noted)
  /** The next pushes for the orphan's client group (mutation recovery; pings skipped) carry exactly these ids of its client, in order. */
  | ({ readonly step: 'expectRecoveryPush'; readonly ids: readonly number[]; readonly within?: number } & Noted)
  /** The next frame (pings skipped) is a recovery pull for the orphan's group, from `cookie` when given. */
  | ({ readonly step: 'expectPull'; readonly cookie?: number | null; readonly within?: number } & Noted)
  /** The server answers the last pull (its requestID) with these acknowledged ids of the orphan's group. */
  | ({ readonly step: 'answerPull'; readonly cookie: number; readonly lastMutationIDChanges: Readonly<Record<string, number>> } & Noted)
  /** The next pushes (one or several frames; pings skipped) carry exactly these mutation ids, in order. */
  | ({
      readonly step: 'expectPush';
      readonly ids: readonly number[];
      readonly within?: number;
      readonly mutations?: readonly { readonly name: string; readonly args: JSONValue }[];
    } & Noted)
  | ({ readonly step: 'expectPing'; readonly at?: number; readonly within?: number } & Noted)
  /** Nothing at all is sent while the clock moves `forMs` (turn autoPong on to let pings through). */
  | ({ readonly step: 'expectNoFrame'; readonly forMs: number } & Noted)
  /** The client closes the current socket. */
  | ({ readonly step: 'expectDisconnect' } & Timed & Noted)
  | ({ readonly step: 'expectNoConnect'; readonly forMs: number } & Noted)
  /** The client's whole key space, read through its public query API. */
  | ({ readonly step: 'expectState'; readonly state: Readonly<Record<string, JSONValue>> } & Noted)
  | ({
      readonly step: 'expectClient';
      readonly online?: boolean;
      /** Needs the pendingMutationCount capability (unchecked without it, unless the scenario needs it). */
      readonly pendingMutationCount?: number;
      /** Needs the connectionStatus capability (unchecked without it, unless the scenario needs it). */
      readonly connection?: 'disconnected' | 'connecting' | 'connected';
    } & Noted)
  /** How often the client called the option of that name (unchecked without that capability, unless the scenario needs it). */
  | ({ readonly step: 'expectCallback'; readonly name: CallbackName; readonly count: number } & Noted)
  | ({ readonly step: 'expectAuthCalls'; readonly count: number } & Noted);

export type StepName = Step['step'];
