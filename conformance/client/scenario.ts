import type { ReadonlyJSONValue as JSONValue } from '../../protocol/json';
import type { ErrorKind } from '../../src/protocol';

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
  /** Set when the scenario cannot run against the public API: why. Reported as skipped. */
  readonly skip?: string;
  readonly client?: ScenarioClient;
  readonly steps: readonly Step[];
}

export interface ScenarioClient {
  /**
   * Token source: the auth function returns `${authPrefix}-${n}` on its n-th call.
   * false: no auth option at all (the subprotocol must be omitted). @default 'token'
   */
  readonly authPrefix?: string | false;
  /** Page visibility at start. @default true */
  readonly visible?: boolean;
  /** @default '1' */
  readonly schemaVersion?: string;
}

export type CallbackName = 'onUpdateNeeded' | 'onClientStateNotFound';

/** Every step may carry a note for the reader (shown in reports). */
interface Noted {
  readonly note?: string;
}

/** Waits (moving the clock at most `within` ms, or up to `at`) for the client to open a socket; checks the URL and subprotocol. */
export interface ExpectConnect extends Noted {
  readonly step: 'expectConnect';
  /** Exact fake-clock time of the connect. */
  readonly at?: number;
  /** Max wait when `at` is not given. @default 0 */
  readonly within?: number;
  /** Query parameters that must have exactly these values. */
  readonly params?: Readonly<Record<string, string>>;
  /** The Sec-WebSocket-Protocol; null: none. Unchecked when absent. */
  readonly protocol?: string | null;
  /** Leave the upgrade pending (in memory only). @default true */
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
  | ({ readonly step: 'mutate'; readonly name: string; readonly args: JSONValue } & Noted)
  | ({ readonly step: 'reconnect' } & Noted)
  | ({ readonly step: 'disconnect' } & Noted)
  /** The app calls close() (and waits for it). */
  | ({ readonly step: 'close' } & Noted)
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
  | ({ readonly step: 'expectDisconnect'; readonly at?: number; readonly within?: number } & Noted)
  | ({ readonly step: 'expectNoConnect'; readonly forMs: number } & Noted)
  /** The client's whole key space, read through its public query API. */
  | ({ readonly step: 'expectState'; readonly state: Readonly<Record<string, JSONValue>> } & Noted)
  | ({
      readonly step: 'expectClient';
      readonly online?: boolean;
      readonly pendingMutationCount?: number;
      readonly connection?: 'disconnected' | 'connecting' | 'connected';
    } & Noted)
  | ({ readonly step: 'expectCallback'; readonly name: CallbackName; readonly count: number } & Noted)
  | ({ readonly step: 'expectAuthCalls'; readonly count: number } & Noted);

export type StepName = Step['step'];
