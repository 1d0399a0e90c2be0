import { isDeepStrictEqual } from 'node:util';
import type { ReadonlyJSONValue } from '../../../protocol/json';
import { CheckFailure } from '../../shared/check-failure';
import type { KeyValues } from '../../shared/client-view';
import { describeStateDiff } from '../../shared/state-diff';
import { describeMissing, OUR_CAPABILITIES, scenarioNeeds, type Capability } from '../capabilities';
import { readAll, type ClientFactory, type ClientUnderTest } from '../factory';
import type { ExpectConnect, Scenario, Step } from '../scenario';
import { ClientSession, CONFORMANCE_ROOM_ID, makeOrphan, newScenarioUserID } from './client-session';
import { checkConnectRequest } from './connect-check';
import type { EngineClock } from './engine-clock';
import { startInjectedPlatform } from './injected-platform';
import { substitute, type ClientIDs } from './placeholders';
import type { ApiPath, ScenarioPlatform } from './platform';
import { startPublicPlatform } from './public-platform';
import { settlePromise } from './settle-promise';
import { collectPushes, SocketFrames } from './socket-frames';
import type { ServerTransport, TransportKind } from './transport';

export type { ApiPath } from './platform';
export type { TransportKind } from './transport';

export interface RunOptions {
  readonly factory: ClientFactory;
  /**
   * 'injected': the client gets the engine's clock, sockets and visibility in
   * its `environment` option (needs that capability). 'public': only SPEC §3
   * options; the clock is faked globally (@sinonjs/fake-timers), the global
   * WebSocket reaches the scripted server over real loopback sockets, the
   * global `document` tells page visibility. @default 'injected'
   */
  readonly api?: ApiPath;
  /** The injected path's sockets; the public-API path always uses real ones. @default 'memory' */
  readonly transport?: TransportKind;
  /** The extras the client has. @default every one (our client's) */
  readonly capabilities?: readonly Capability[];
}

export interface StepFailure {
  readonly stepIndex: number;
  readonly step: Step | undefined;
  readonly message: string;
  readonly expected?: string;
  readonly actual?: string;
}

export interface ScenarioResult {
  readonly name: string;
  readonly status: 'passed' | 'failed' | 'skipped';
  readonly skipReason?: string;
  readonly failure?: StepFailure;
  /** Observations left unchecked because the client lacks these capabilities. */
  readonly unchecked?: readonly Capability[];
  /** What happened, in order, with fake-clock times. */
  readonly transcript: readonly string[];
}

/** Why the scenario cannot run for this client on this path, if it cannot. */
export function skipReason(scenario: Scenario, options: Pick<RunOptions, 'api' | 'capabilities'>): string | undefined {
  if (scenario.skip !== undefined) return scenario.skip;
  const capabilities = options.capabilities ?? OUR_CAPABILITIES;
  const needs = scenarioNeeds(scenario);
  if ((options.api ?? 'injected') === 'injected') needs.push('environment');
  const missing = needs.filter((capability) => !capabilities.includes(capability));
  return missing.length === 0 ? undefined : describeMissing(missing);
}

/** Replays one scenario against a fresh client and reports the first step that does not hold. */
export async function runScenario(scenario: Scenario, options: RunOptions): Promise<ScenarioResult> {
  const skip = skipReason(scenario, options);
  if (skip !== undefined) return { name: scenario.name, status: 'skipped', skipReason: skip, transcript: [] };
  const visible = scenario.client?.visible ?? true;
  const platform = options.api === 'public' ? await startPublicPlatform(visible) : await startInjectedPlatform(options.transport ?? 'memory', visible);
  let run: ScenarioRun | undefined;
  // A rejection the client leaves unhandled (the way some clients log) is noted, not fatal to the whole run.
  const noteRejection = (reason: unknown) => run?.note(`the client left a promise rejection unhandled: ${reason instanceof Error ? reason.message : String(reason)}`);
  process.on('unhandledRejection', noteRejection);
  try {
    const userID = newScenarioUserID();
    const orphan = scenario.client?.orphan;
    const orphanIDs = orphan === undefined ? undefined : await makeOrphan(options.factory, platform, userID, scenario.client?.schemaVersion, orphan.mutations);
    run = new ScenarioRun(scenario, options.factory, platform, userID, options.capabilities ?? OUR_CAPABILITIES, orphanIDs);
    const failure = await run.execute();
    const unchecked = [...run.unchecked];
    return {
      name: scenario.name,
      status: failure === undefined ? 'passed' : 'failed',
      ...(failure ? { failure } : {}),
      ...(unchecked.length === 0 ? {} : { unchecked }),
      transcript: run.transcript,
    };
  } catch (error) {
    const message = `the engine or the client threw before the first step: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    return { name: scenario.name, status: 'failed', failure: { stepIndex: -1, step: undefined, message }, transcript: run?.transcript ?? [] };
  } finally {
    await run?.dispose();
    await platform.dispose();
    process.off('unhandledRejection', noteRejection);
  }
}

class ScenarioRun {
  readonly transcript: string[] = [];
  readonly unchecked = new Set<Capability>();
  readonly #session: ClientSession;
  readonly clock: EngineClock;
  readonly transport: ServerTransport;
  #ids: ClientIDs;
  readonly #frames: SocketFrames[] = [];
  #claimed = 0;
  #current: SocketFrames | undefined;
  #autoPong = false;
  #serverLimits: { readonly maxMutationsPerPush: number; readonly maxFrameBytes: number } | undefined;
  /** The requestID of the last recovery pull the client sent. */
  #pullRequestID: string | undefined;
  readonly #closesLogged = new Set<SocketFrames>();

  constructor(
    private readonly scenario: Scenario,
    factory: ClientFactory,
    private readonly platform: ScenarioPlatform,
    userID: string,
    private readonly capabilities: readonly Capability[],
    orphan: { clientID: string; clientGroupID: string } | undefined,
  ) {
    this.clock = platform.clock;
    this.transport = platform.transport;
    this.#session = new ClientSession(factory, platform, userID, capabilities, scenario.client);
    this.#ids = {
      clientID: '',
      clientGroupID: '',
      ...(orphan === undefined ? {} : { orphanClientID: orphan.clientID, orphanGroupID: orphan.clientGroupID }),
    };
  }

  async execute(): Promise<StepFailure | undefined> {
    let index = -1;
    try {
      const { client } = this.#session;
      const [clientID, clientGroupID] = await this.#finish(Promise.all([client.clientID, client.clientGroupID]), "the client's clientID and clientGroupID");
      this.#ids = { ...this.#ids, clientID, clientGroupID };
      await this.#settle();
      for (index = 0; index < this.scenario.steps.length; index++) {
        const step = this.scenario.steps[index]!;
        await this.#run(step);
        await this.#settle();
      }
      return undefined;
    } catch (error) {
      const step = this.scenario.steps[index];
      this.#log(`✗ step ${index + 1} failed`);
      if (error instanceof CheckFailure) {
        return {
          stepIndex: index,
          step,
          message: error.message,
          ...(error.expected === undefined ? {} : { expected: error.expected }),
          ...(error.actual === undefined ? {} : { actual: error.actual }),
        };
      }
      return { stepIndex: index, step, message: `the engine or the client threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}` };
    }
  }

  async dispose(): Promise<void> {
    // Closing may wait on the store's timers (a last persist): let them fire.
    await settlePromise(this.#session.client.close(), 'close()', () => this.transport.settle(), this.clock).catch(() => {});
  }

  async #run(step: Step): Promise<void> {
    const session = this.#session;
    const client = session.client;
    switch (step.step) {
      case 'expectConnect':
        return this.#expectConnect(step);
      case 'sendConnected':
        return this.#deliver(['connected', { wsid: step.wsid ?? this.#currentWsid() }]);
      case 'send':
        return this.#deliver(substitute(step.message, this.#ids));
      case 'sendText':
        return this.#deliverText(step.text);
      case 'sendError':
        return this.#deliver(['error', step.kind, substitute(step.message ?? step.kind, this.#ids)]);
      case 'dropSocket':
        this.#log(`server drops the socket (${step.clean ? 'clean close' : 'abrupt'})`);
        this.#requireCurrent('drop a socket').socket.drop(step.clean ?? false);
        return;
      case 'advance':
        await this.#runUntil(() => false, this.clock.now() + step.ms);
        return;
      case 'setVisible':
        this.#log(`page ${step.visible ? 'visible' : 'hidden'}`);
        this.platform.setVisible(step.visible);
        return;
      case 'autoPong':
        this.#autoPong = step.on;
        return;
      case 'mutate': {
        const times = step.times ?? 1;
        this.#log(`app: mutate.${step.name}(${excerpt(JSON.stringify(step.args))})${times === 1 ? '' : ` × ${times}`}`);
        const mutator = client.mutate[step.name] as ((args: unknown) => Promise<unknown>) | undefined;
        if (mutator === undefined) throw new CheckFailure(`the client has no mutator ${step.name}`);
        const calls = Array.from({ length: times }, () => mutator(step.args));
        await this.#finish(Promise.all(calls), `mutate.${step.name} to resolve`);
        return;
      }
      case 'serverLimits':
        this.#log(`server: refuses pushes over ${step.maxMutationsPerPush} mutations or ${step.maxFrameBytes} bytes`);
        this.#serverLimits = { maxMutationsPerPush: step.maxMutationsPerPush, maxFrameBytes: step.maxFrameBytes };
        return;
      case 'reconnect':
        this.#log('app: reconnect()');
        this.#extra(client, 'reconnect').call(client);
        return;
      case 'disconnect':
        this.#log('app: disconnect()');
        this.#extra(client, 'disconnect').call(client);
        return;
      case 'close':
        this.#log('app: close()');
        await this.#finish(client.close(), 'close() to resolve', true);
        return;
      case 'expectPush':
        return this.#expectPush(step.ids, step.within ?? 0, step.mutations);
      case 'expectRecoveryPush':
        return this.#expectPush(step.ids, step.within ?? 0, undefined, this.#orphanGroup());
      case 'expectPull':
        return this.#expectPull(step.cookie, step.within ?? 0);
      case 'answerPull': {
        const requestID = this.#pullRequestID;
        if (requestID === undefined) throw new CheckFailure('cannot answer a pull: the client sent none (add an expectPull step first)');
        return this.#deliver(['pull', { cookie: step.cookie, lastMutationIDChanges: substitute(step.lastMutationIDChanges, this.#ids), requestID }]);
      }
      case 'expectPing':
        return this.#expectPing(step.at, step.within ?? 0);
      case 'expectNoFrame': {
        const socket = this.#current;
        await this.#runUntil(() => (socket?.unread.length ?? 0) > 0, this.clock.now() + step.forMs);
        const frame = socket?.unread[0];
        if (frame !== undefined) throw new CheckFailure(`the client sent a frame at t=${frame.at} ms`, `nothing for ${step.forMs} ms`, frame.text);
        return;
      }
      case 'expectDisconnect':
        return this.#expectDisconnect(step);
      case 'expectNoConnect': {
        await this.#runUntil(() => this.transport.sockets.length > this.#claimed, this.clock.now() + step.forMs);
        const socket = this.transport.sockets[this.#claimed];
        if (socket !== undefined) throw new CheckFailure(`the client connected at t=${socket.openedAt} ms`, `no connect for ${step.forMs} ms`, socket.url);
        return;
      }
      case 'expectState': {
        const actual = await this.#finish(readAll(client), 'a query of the whole key space');
        const expected = substitute(step.state, this.#ids) as KeyValues;
        const diff = describeStateDiff(expected, actual);
        if (diff !== '') throw new CheckFailure(`the client's data differs: ${diff}`, JSON.stringify(expected), JSON.stringify(actual));
        return;
      }
      case 'expectClient': {
        const actual: Record<string, unknown> = {};
        const expected: Record<string, unknown> = {};
        if (step.online !== undefined) [expected.online, actual.online] = [step.online, client.online];
        if (step.pendingMutationCount !== undefined && this.#observes('pendingMutationCount')) {
          [expected.pendingMutationCount, actual.pendingMutationCount] = [step.pendingMutationCount, this.#extra(client, 'pendingMutationCount')];
        }
        if (step.connection !== undefined && this.#observes('connectionStatus')) {
          [expected.connection, actual.connection] = [step.connection, this.#extra(client, 'connectionStatus').state];
        }
        if (!isDeepStrictEqual(expected, actual)) throw new CheckFailure("the client's state differs", JSON.stringify(expected), JSON.stringify(actual));
        return;
      }
      case 'expectCallback': {
        if (!this.#observes(step.name)) return;
        const count = session.callbacks[step.name];
        if (count !== step.count) throw new CheckFailure(`${step.name} was called ${count} time(s)`, `${step.count}`, `${count}`);
        return;
      }
      case 'expectAuthCalls':
        if (session.authCalls !== step.count) throw new CheckFailure(`the auth function was called ${session.authCalls} time(s)`, `${step.count}`, `${session.authCalls}`);
        return;
    }
  }

  /** Whether the client has this capability; when not, the observation is noted as unchecked. */
  #observes(capability: Capability): boolean {
    if (this.capabilities.includes(capability)) return true;
    this.unchecked.add(capability);
    return false;
  }

  /** An extra the client declares (the scenario was skipped otherwise); a declared one that is missing fails the step. */
  #extra<K extends 'pendingMutationCount' | 'connectionStatus' | 'reconnect' | 'disconnect'>(client: ClientUnderTest, name: K): NonNullable<ClientUnderTest[K]> {
    const value = client[name];
    if (value === undefined || value === null) throw new CheckFailure(`the client declares the ${name} capability but has no ${name}`);
    return value as NonNullable<ClientUnderTest[K]>;
  }

  // ---- expectations over time ----

  /** The exact time a timed step names (if it names one) and the latest time it may wait for. */
  #deadline(step: { readonly at?: number; readonly after?: number; readonly within?: number }): { exact: number | undefined; limit: number } {
    const exact = step.at ?? (step.after === undefined ? undefined : this.clock.now() + step.after);
    return { exact, limit: exact ?? this.clock.now() + (step.within ?? 0) };
  }

  async #expectConnect(step: ExpectConnect): Promise<void> {
    const { exact, limit } = this.#deadline(step);
    const found = await this.#runUntil(() => this.transport.sockets.length > this.#claimed, limit);
    const socket = this.transport.sockets[this.#claimed];
    if (!found || socket === undefined) throw new CheckFailure(`no connect by t=${limit} ms`, exact === undefined ? `a connect within ${step.within ?? 0} ms` : `a connect at t=${exact} ms`, this.#openedTimes());
    this.#claimed++;
    if (exact !== undefined && socket.openedAt !== exact) {
      throw new CheckFailure(`the client connected at t=${socket.openedAt} ms`, `t=${exact} ms`, `t=${socket.openedAt} ms`);
    }
    const earlierWsids = new Set(this.#frames.map((f) => new URL(f.socket.url).searchParams.get('wsid') ?? ''));
    const params = checkConnectRequest(socket.url, { socketOrigin: this.transport.socketOrigin, roomID: CONFORMANCE_ROOM_ID, ids: this.#ids, earlierWsids });
    const frames = new SocketFrames(socket, { ids: this.#ids, schemaVersion: this.#session.schemaVersion });
    this.#frames.push(frames);
    this.#current = frames;
    this.#log(`client connects: baseCookie=${JSON.stringify(params.baseCookie)} lmid=${params.lmid} protocol=${socket.protocol ?? '(none)'}`);
    for (const [name, param] of Object.entries(step.params ?? {})) {
      const value = param === '$openedAt' ? String(socket.openedAt) : param;
      if (params[name] !== value) throw new CheckFailure(`the connect request's ${name} is ${JSON.stringify(params[name])}`, JSON.stringify(value), socket.url);
    }
    if (step.protocol !== undefined && socket.protocol !== step.protocol) {
      throw new CheckFailure('the connect request carries the wrong subprotocol (auth token)', JSON.stringify(step.protocol), JSON.stringify(socket.protocol));
    }
    if (step.accept ?? true) socket.accept();
  }

  async #expectPush(
    ids: readonly number[],
    within: number,
    mutations: readonly { readonly name: string; readonly args: ReadonlyJSONValue }[] | undefined,
    clientGroupID: string = this.#ids.clientGroupID,
  ): Promise<void> {
    const socket = this.#requireCurrent('expect a push');
    const collect = () => collectPushes(socket.unread, ids.length, clientGroupID);
    await this.#runUntil(() => collect().done, this.clock.now() + within);
    const { frames, mutations: got, unexpected } = collect();
    if (unexpected !== undefined) throw new CheckFailure(`expected a push, the client sent ${unexpected.message[0]}`, `push of ids ${ids.join(', ')}`, unexpected.text);
    const gotIDs = got.map((m) => m.id);
    if (!isDeepStrictEqual(gotIDs, ids)) {
      throw new CheckFailure(`the client pushed mutation ids [${gotIDs.join(', ')}]`, `[${ids.join(', ')}]`, frames.map((f) => f.text).join(' | ') || 'no push');
    }
    if (mutations !== undefined) {
      const shape = got.map((m) => ({ name: m.name, args: m.args }));
      const wanted = mutations.map((m) => ({ name: m.name, args: substitute(m.args, this.#ids) }));
      if (!isDeepStrictEqual(shape, wanted)) throw new CheckFailure('the pushed mutations differ', JSON.stringify(wanted), JSON.stringify(shape));
    }
    socket.consume(frames.length);
  }

  async #expectPull(cookie: number | null | undefined, within: number): Promise<void> {
    const socket = this.#requireCurrent('expect a pull');
    const next = () => socket.unread.find((f) => f.message[0] !== 'ping');
    await this.#runUntil(() => next() !== undefined, this.clock.now() + within);
    const frame = next();
    if (frame === undefined) throw new CheckFailure(`no pull within ${within} ms`, `a pull for client group ${this.#orphanGroup()}`, 'nothing');
    const [name, body] = frame.message;
    if (name !== 'pull') throw new CheckFailure(`expected a recovery pull, the client sent ${name}`, 'pull', frame.text);
    if (body.clientGroupID !== this.#orphanGroup()) throw new CheckFailure('the pull names another client group', this.#orphanGroup(), frame.text);
    if (cookie !== undefined && body.cookie !== cookie) throw new CheckFailure(`the pull asks from cookie ${JSON.stringify(body.cookie)}`, JSON.stringify(cookie), frame.text);
    this.#pullRequestID = body.requestID;
    socket.consume(socket.unread.indexOf(frame) + 1);
  }

  #orphanGroup(): string {
    const group = this.#ids.orphanGroupID;
    if (group === undefined) throw new CheckFailure('the scenario has no orphan (set client.orphan)');
    return group;
  }

  async #expectPing(at: number | undefined, within: number): Promise<void> {
    const socket = this.#requireCurrent('expect a ping');
    const limit = at ?? this.clock.now() + within;
    await this.#runUntil(() => socket.unread.length > 0, limit);
    const frame = socket.unread[0];
    if (frame === undefined) throw new CheckFailure(`no ping by t=${limit} ms`, at === undefined ? `a ping within ${within} ms` : `a ping at t=${at} ms`, 'nothing');
    if (frame.message[0] !== 'ping') throw new CheckFailure(`expected a ping, the client sent ${frame.message[0]}`, 'ping', frame.text);
    if (at !== undefined && frame.at !== at) throw new CheckFailure(`the client pinged at t=${frame.at} ms`, `t=${at} ms`, `t=${frame.at} ms`);
    socket.consume(1);
  }

  async #expectDisconnect(step: Extract<Step, { step: 'expectDisconnect' }>): Promise<void> {
    const socket = this.#requireCurrent('expect a disconnect').socket;
    const { exact, limit } = this.#deadline(step);
    await this.#runUntil(() => socket.closedByClientAt !== undefined, limit);
    if (socket.closedByClientAt === undefined) throw new CheckFailure(`the client kept the socket open until t=${limit} ms`, exact === undefined ? `a close within ${step.within ?? 0} ms` : `a close at t=${exact} ms`, 'still open');
    if (exact !== undefined && socket.closedByClientAt !== exact) {
      throw new CheckFailure(`the client closed the socket at t=${socket.closedByClientAt} ms`, `t=${exact} ms`, `t=${socket.closedByClientAt} ms`);
    }
  }

  /**
   * Lets the client work and moves the clock timer by timer until `done` holds
   * or the clock reaches `limit` (then it stands at `limit`).
   */
  async #runUntil(done: () => boolean, limit: number): Promise<boolean> {
    for (;;) {
      await this.#settle();
      if (done()) return true;
      await this.transport.beforeTimeMoves(() => this.#scanQuietly(done));
      await this.#settle();
      if (done()) return true;
      const due = this.clock.nextDueAt();
      if (due === undefined || due > limit) break;
      this.clock.fireNext();
    }
    this.clock.jumpTo(limit);
    await this.#settle();
    return done();
  }

  /** `done` over frames scanned so far, without failing: a violation surfaces at the next settle. */
  #scanQuietly(done: () => boolean): boolean {
    try {
      for (const frames of this.#frames) frames.scan();
    } catch {
      return true;
    }
    return done();
  }

  async #settle(): Promise<void> {
    await this.transport.settle();
    for (const frames of this.#frames) {
      if (frames.socket.closedByClientAt !== undefined && !this.#closesLogged.has(frames)) {
        this.#closesLogged.add(frames);
        this.#log(`client closes the socket (at t=${frames.socket.closedByClientAt})`);
      }
      frames.scan();
      for (; frames.handled < frames.received.length; frames.handled++) {
        const frame = frames.received[frames.handled]!;
        this.#log(`client → ${frame.message[0] === 'push' ? `push ids [${describeIDs(frame.message[1].mutations.map((m) => m.id))}]` : frame.text}`);
        if (frames === this.#current) this.#refuseOverLimit(frames, frame);
        if (this.#autoPong && frame.message[0] === 'ping' && frames === this.#current) {
          frames.discard(frame);
          frames.socket.deliver('["pong",{}]');
          this.#log('server → ["pong",{}] (auto)');
        }
      }
    }
    if (this.#autoPong) await this.transport.settle();
  }

  /** Waits for promise work; with `runTimers` the clock may move (timer by timer) while it waits. */
  #finish<T>(promise: Promise<T> | T, what: string, runTimers = false): Promise<T> {
    return settlePromise(promise, what, () => this.#settle(), runTimers ? this.clock : undefined);
  }


  // ---- the server's side ----

  /** With serverLimits set, a push over them gets InvalidPush and the socket is closed, as a server with those limits does. */
  #refuseOverLimit(frames: SocketFrames, frame: SocketFrames['received'][number]): void {
    const limits = this.#serverLimits;
    if (limits === undefined || frame.message[0] !== 'push' || frames.socket.closedByClientAt !== undefined) return;
    const count = frame.message[1].mutations.length;
    const bytes = new TextEncoder().encode(frame.text).length;
    if (count <= limits.maxMutationsPerPush && bytes <= limits.maxFrameBytes) return;
    const message = `Push of ${count} mutations and ${bytes} bytes; at most ${limits.maxMutationsPerPush} mutations and ${limits.maxFrameBytes} bytes are accepted`;
    frames.discard(frame);
    this.#deliverText(JSON.stringify(['error', 'InvalidPush', message]));
    this.#log('server drops the socket (clean close)');
    frames.socket.drop(true);
  }

  #deliver(message: ReadonlyJSONValue): void {
    this.#deliverText(JSON.stringify(message));
  }

  #deliverText(text: string): void {
    this.#log(`server → ${excerpt(text)}`);
    this.#requireCurrent('send a frame').socket.deliver(text);
  }

  #requireCurrent(what: string): SocketFrames {
    if (this.#current === undefined) throw new CheckFailure(`cannot ${what}: no connect was expected yet (add an expectConnect step first)`);
    return this.#current;
  }

  #currentWsid(): string {
    return new URL(this.#requireCurrent('answer connected').socket.url).searchParams.get('wsid') ?? '';
  }

  #openedTimes(): string {
    const times = this.transport.sockets.map((s) => `t=${s.openedAt}`);
    return times.length === 0 ? 'no socket opened' : `sockets opened at ${times.join(', ')}`;
  }

  /** Adds a line to what happened. */
  note(line: string): void {
    this.#log(line);
  }

  #log(line: string): void {
    this.transcript.push(`t=${this.clock.now()} ${line}`);
  }
}

/** Longest text of a transcript line's payload. */
const TRANSCRIPT_EXCERPT_CHARS = 500;

function excerpt(text: string): string {
  return text.length <= TRANSCRIPT_EXCERPT_CHARS ? text : `${text.slice(0, TRANSCRIPT_EXCERPT_CHARS)}… (${text.length} characters)`;
}

/** Runs of consecutive ids at least this long are written first–last in the transcript. */
const ID_RUN_COLLAPSE = 10;

/** Mutation ids for the transcript, long runs of consecutive ids as first–last. */
function describeIDs(ids: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < ids.length; ) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === ids[j]! + 1) j++;
    parts.push(j - i + 1 >= ID_RUN_COLLAPSE ? `${ids[i]}–${ids[j]}` : ids.slice(i, j + 1).join(', '));
    i = j + 1;
  }
  return parts.join(', ');
}
