import { HIDDEN_DISCONNECT_DELAY_MS, RECONNECT_BACKOFF_INITIAL_MS, RECONNECT_BACKOFF_MAX_MS } from '../../../protocol/constants';
import type { ReadonlyJSONValue } from '../../../protocol/json';
import { RECONNECT_JITTER_MAX_MS } from '../../../src/connection/backoff';
import type { PatchOperation } from '../../../src/protocol';
import type { ExpectConnect, Scenario, Step } from '../scenario';
import type { Command } from './commands';

interface ModelMutation {
  readonly id: number;
  readonly op: 'put' | 'del' | 'increment';
  readonly key: string;
  readonly value: number;
}

type Data = Map<string, ReadonlyJSONValue>;

/** How far an out-of-order poke's baseCookie is from the real one. */
const OUT_OF_ORDER_GAP = 100;

/** Frames roomsync's client keeps unacknowledged on a socket before it holds back new pushes. */
export const PUSH_FRAMES_A_CLIENT_MAY_HOLD = 8;

export interface ModelOptions {
  /**
   * How many frames on its socket the client under test keeps unacknowledged
   * before it may hold back new pushes (its flow-control window; neither SPEC
   * nor PROTOCOL sets one). The model's server acknowledges everything it
   * received before a client reaches that point, so the model never predicts
   * a push the client is allowed to hold. Infinity for a client that never
   * holds pushes back.
   * @default PUSH_FRAMES_A_CLIENT_MAY_HOLD
   */
  readonly pushWindowFrames?: number;
}

/**
 * SPEC §9: the initial delay doubled per consecutive error, capped. Written
 * from the spec, not taken from the client. A drop after a connect is not an
 * error: the client reconnects within a second.
 */
function backoffMs(consecutiveErrors: number): number {
  return Math.min(RECONNECT_BACKOFF_INITIAL_MS * 2 ** (consecutiveErrors - 1), RECONNECT_BACKOFF_MAX_MS);
}

function apply(data: Data, m: ModelMutation): void {
  if (m.op === 'put') data.set(m.key, m.value);
  else if (m.op === 'del') data.delete(m.key);
  else {
    const current = data.get(m.key);
    data.set(m.key, (typeof current === 'number' ? current : 0) + m.value);
  }
}

function sorted(data: Data): Record<string, ReadonlyJSONValue> {
  return Object.fromEntries([...data].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function argsOf(m: ModelMutation): ReadonlyJSONValue {
  if (m.op === 'put') return { key: m.key, value: m.value };
  if (m.op === 'del') return { key: m.key };
  return { key: m.key, delta: m.value };
}

/**
 * The model of a server and of what a correct client must do, turning a
 * command sequence into a scenario whose expectations are the model's
 * predictions: every mutation pushed once per socket, in order, resumed and
 * re-sent until acknowledged; connects within a second of a drop, then at
 * the back-off times, with the right cookie and lmid; the client's data equal
 * to the server's plus its pending mutations replayed; at the end nothing
 * pending and the server's data. The reconnect after a drop may come at any
 * time in its second, so every time the model predicts is relative (`after`):
 * the model's clock runs behind the client's by the jitters so far.
 */
export class ModelScenarioBuilder {
  readonly steps: Step[] = [];
  readonly #pushWindowFrames: number;
  #now = 0;
  #connected = false;
  #retryAt = 0;
  #errors = 0;
  #refuseNext = false;
  /** Server side. */
  readonly #server: Data = new Map();
  #version = 0;
  #received = 0;
  #acked = 0;
  /** The last id of each frame pushed on this socket and not yet acknowledged. */
  #framesInFlight: number[] = [];
  /** Client side. */
  readonly #mutations: ModelMutation[] = [];
  #clientCookie: number | null = null;
  /** The server's data at the client's cookie. */
  #clientBase: Data = new Map();

  constructor(options: ModelOptions = {}) {
    this.#pushWindowFrames = options.pushWindowFrames ?? PUSH_FRAMES_A_CLIENT_MAY_HOLD;
    this.steps.push({ step: 'autoPong', on: true });
    this.#connect({ after: 0 });
  }

  add(command: Command): void {
    switch (command.type) {
      case 'mutate': {
        if (this.#connected && this.#framesInFlight.length >= this.#pushWindowFrames) {
          this.add({ type: 'ack', count: this.#received - this.#acked });
        }
        const mutation = { id: this.#mutations.length + 1, op: command.op, key: command.key, value: command.value };
        this.#mutations.push(mutation);
        this.steps.push({ step: 'mutate', name: mutation.op, args: argsOf(mutation) });
        if (this.#connected) this.#expectPushOfUnsent();
        return;
      }
      case 'otherChange': {
        if (command.value === null) this.#server.delete(command.key);
        else this.#server.set(command.key, command.value);
        this.#version++;
        if (this.#connected) {
          const op: PatchOperation = command.value === null ? { op: 'del', key: command.key } : { op: 'put', key: command.key, value: command.value };
          this.#poke([op], {});
        }
        return;
      }
      case 'ack': {
        if (!this.#connected || this.#received === this.#acked) return;
        const upTo = Math.min(this.#received, this.#acked + command.count);
        const touched = new Set<string>();
        for (const m of this.#mutations.slice(this.#acked, upTo)) {
          apply(this.#server, m);
          touched.add(m.key);
        }
        this.#acked = upTo;
        this.#framesInFlight = this.#framesInFlight.filter((lastID) => lastID > upTo);
        this.#version++;
        const patch: PatchOperation[] = [...touched].sort().map((key) => {
          const value = this.#server.get(key);
          return value === undefined ? { op: 'del', key } : { op: 'put', key, value };
        });
        this.#poke(patch, { $clientID: upTo });
        this.steps.push({ step: 'expectClient', pendingMutationCount: this.#mutations.length - this.#acked });
        return;
      }
      case 'drop':
        if (!this.#connected) return;
        this.steps.push({ step: 'dropSocket' });
        this.#dropped();
        return;
      case 'outOfOrderPoke': {
        if (!this.#connected) return;
        const wrongBase = this.#version + OUT_OF_ORDER_GAP;
        const body = { baseCookie: wrongBase, cookie: wrongBase + 1, lastMutationIDChanges: {}, patch: [{ op: 'put', key: 'bogus', value: true }], requestID: 'out-of-order' };
        this.steps.push({ step: 'send', message: ['poke', body], note: 'out of order: must be dropped' });
        this.steps.push({ step: 'expectDisconnect', after: 0 });
        this.#dropped();
        return;
      }
      case 'refuseNext':
        this.#refuseNext = true;
        return;
      case 'advance': {
        const until = this.#now + command.ms;
        while (!this.#connected && this.#retryAt <= until) this.#connectAt(this.#retryAt);
        if (until > this.#now) this.steps.push({ step: 'advance', ms: until - this.#now });
        this.#now = until;
        return;
      }
      case 'hide':
        this.#hide(command.ms);
        return;
      case 'reconnect':
        if (this.#connected) return;
        this.steps.push({ step: 'reconnect' });
        this.#connectAt(this.#now);
        return;
    }
  }

  /** Ends with every mutation sent and acknowledged: the client must hold exactly the server's data. */
  finish(): Step[] {
    this.steps.push({ step: 'expectState', state: this.#expectedClientData(), note: "the server's data at the client's cookie, pending mutations replayed" });
    if (!this.#connected) {
      this.#refuseNext = false;
      this.steps.push({ step: 'reconnect' });
      this.#connectAt(this.#now);
    }
    this.add({ type: 'ack', count: this.#mutations.length });
    this.steps.push({ step: 'expectClient', pendingMutationCount: 0 });
    this.steps.push({ step: 'expectState', state: sorted(this.#server) });
    return this.steps;
  }

  #connectAt(at: number): void {
    const after = at - this.#now;
    this.#now = at;
    this.#connect({ after });
  }

  /** The client's connect at the given (relative) time; the server accepts it unless told to refuse it. */
  #connect(timing: Pick<ExpectConnect, 'after' | 'within'>): void {
    this.steps.push({
      step: 'expectConnect',
      ...timing,
      params: { baseCookie: this.#clientCookie === null ? '' : String(this.#clientCookie), lmid: String(this.#acked) },
    });
    if (this.#refuseNext) {
      this.#refuseNext = false;
      this.steps.push({ step: 'dropSocket' });
      this.#fail();
      return;
    }
    this.steps.push({ step: 'sendConnected' });
    this.#connected = true;
    this.#errors = 0;
    if (this.#version > 0 && this.#clientCookie !== this.#version) {
      const patch: PatchOperation[] = [{ op: 'clear' }, ...[...this.#server].map(([key, value]): PatchOperation => ({ op: 'put', key, value }))];
      this.#poke(patch, {}, 'catch-up from the cookie the client presented');
    }
    this.#received = this.#acked;
    this.#framesInFlight = [];
    this.#expectPushOfUnsent();
  }

  /**
   * Hidden for HIDDEN_DISCONNECT_DELAY_MS or more disconnects (without counting
   * as an error); no connect while hidden; visible again, a client that is not
   * waiting out a back-off connects at once.
   */
  #hide(ms: number): void {
    const until = this.#now + ms;
    this.steps.push({ step: 'setVisible', visible: false });
    if (this.#connected && ms >= HIDDEN_DISCONNECT_DELAY_MS) {
      this.#now += HIDDEN_DISCONNECT_DELAY_MS;
      this.steps.push({ step: 'expectDisconnect', after: HIDDEN_DISCONNECT_DELAY_MS });
      this.#connected = false;
      this.#retryAt = this.#now;
    }
    if (until > this.#now) {
      this.steps.push(this.#connected ? { step: 'advance', ms: until - this.#now } : { step: 'expectNoConnect', forMs: until - this.#now });
    }
    this.#now = until;
    this.steps.push({ step: 'setVisible', visible: true });
    if (!this.#connected && this.#retryAt <= this.#now) this.#connectAt(this.#now);
  }

  #fail(): void {
    this.#connected = false;
    this.#errors++;
    this.#retryAt = this.#now + backoffMs(this.#errors);
  }

  /** A connected socket is lost: the client is back within a second (the model's clock does not move). */
  #dropped(): void {
    this.#connected = false;
    this.#connect({ within: RECONNECT_JITTER_MAX_MS });
  }

  #expectPushOfUnsent(): void {
    const ids = this.#mutations.slice(this.#received).map((m) => m.id);
    if (ids.length === 0) return;
    this.steps.push({ step: 'expectPush', ids });
    this.#received = ids.at(-1)!;
    this.#framesInFlight.push(this.#received);
  }

  #poke(patch: PatchOperation[], lastMutationIDChanges: Record<string, number>, note?: string): void {
    const baseCookie = this.#clientCookie;
    const body = { baseCookie, cookie: this.#version, lastMutationIDChanges, patch, requestID: `model-${this.#version}` };
    this.steps.push({ step: 'send', message: ['poke', body], ...(note === undefined ? {} : { note }) });
    this.#clientCookie = this.#version;
    this.#clientBase = new Map(this.#server);
  }

  #expectedClientData(): Record<string, ReadonlyJSONValue> {
    const data = new Map(this.#clientBase);
    for (const m of this.#mutations.slice(this.#acked)) apply(data, m);
    return sorted(data);
  }
}

/** The scenario a command sequence stands for. */
export function commandsToScenario(commands: readonly Command[], name = 'property/counterexample', options: ModelOptions = {}): Scenario {
  const builder = new ModelScenarioBuilder(options);
  for (const command of commands) builder.add(command);
  return {
    name,
    spec: 'SPEC §4 Pushing, Out of order; §9 back-off; PROTOCOL push, poke, lastMutationIDChanges',
    description: `Model-checked sequence: ${commands.map((c) => JSON.stringify(c)).join(', ') || '(none)'}`,
    steps: builder.finish(),
  };
}
