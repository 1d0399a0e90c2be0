import { expect } from 'vitest';
import { hasAppState } from './app-state';
import { TestClient, uniqueID } from './test-client';

/** Odd ids increment "total", even ids put the client's own key: both must be there exactly once. */
export function streamMutation(c: TestClient, id: number) {
  return id % 2 === 1 ? c.mutation('increment', { key: 'total', delta: 1 }, id) : c.mutation('put', { key: `${c.clientID}/${id}`, value: id }, id);
}

/** The state after each client's mutations 1…`count`. */
export function streamState(clientIDs: readonly string[], count: number): Record<string, number> {
  const state: Record<string, number> = {};
  for (const clientID of clientIDs) for (let id = 2; id <= count; id += 2) state[`${clientID}/${id}`] = id;
  if (count > 0) state.total = clientIDs.length * Math.ceil(count / 2);
  return state;
}

/**
 * One client pushing `total` mutations with a few unacknowledged in flight,
 * that can move to another node: it reconnects with the cookie and last
 * mutation id it saw acknowledged and re-sends everything after that.
 */
export class StreamingClient {
  readonly clientID = uniqueID('c');
  readonly clientGroupID = uniqueID('g');
  client: TestClient;
  /** The clients this stream used before its current one (it moved). */
  readonly earlier: TestClient[] = [];
  /** The node each of its clients connected to, the current one last. */
  readonly urls: string[] = [];
  private sentCount = 0;
  onMessage: () => void = () => {};

  constructor(
    readonly roomID: string,
    url: string,
    private readonly total: number,
    private readonly inFlight: number,
  ) {
    this.client = this.open(url, null, 0);
  }

  get acked(): number {
    return this.client.lmid;
  }

  /** Mutations sent on the current connection or before (the ones not acknowledged are re-sent after a move). */
  get sent(): number {
    return this.sentCount;
  }

  get done(): boolean {
    return this.client.lmid >= this.total;
  }

  /**
   * Sends more while fewer than `inFlight` are unacknowledged; nothing
   * before its connection is accepted (the first frame is `connected`).
   */
  fill(): void {
    const c = this.client;
    if (c.closed || c.messages[0]?.[0] !== 'connected') return;
    // Acknowledged meanwhile (a catch-up poke after a move): stored, no need to send those again.
    if (this.sentCount < c.lmid) this.sentCount = c.lmid;
    while (this.sentCount < this.total && this.sentCount - c.lmid < this.inFlight) c.push([streamMutation(c, ++this.sentCount)]);
  }

  /**
   * Connects to `url` from where this client is, and re-sends what was not
   * acknowledged. What was sent since the last acknowledgement counts as
   * not sent from now on, before any frame of the new connection: the old
   * node may have stored only some of it, and a push after a gap in the ids
   * is refused (InvalidPush, the socket closes). `fill` runs on any frame of
   * any stream; with the count reset only once `connected` was awaited, a
   * catch-up poke read in the same chunk as `connected` (acknowledging part
   * of what was in flight) made it push past the gap.
   */
  async moveTo(url: string): Promise<void> {
    const old = this.client;
    this.earlier.push(old);
    this.sentCount = old.lmid;
    this.client = this.open(url, old.cookie, old.lmid);
    this.client.state.clear();
    for (const [k, v] of old.state) this.client.state.set(k, v);
    await this.client.connected();
    this.fill();
  }

  /** One line on where this stream is: acknowledged, sent, its socket, errors, the last poke, for a stall's diagnosis. */
  describe(): string {
    const c = this.client;
    const last = c.pokes.at(-1);
    const socket = c.closed ? `closed ${c.closeCode}` : 'open';
    const moved = this.urls.length < 2 ? '' : ` (moved from ${this.urls.slice(0, -1).join(', ')})`;
    const pokes = last === undefined ? 'no poke' : `${c.pokes.length} pokes, last ${last.baseCookie}->${last.cookie}`;
    const errors = c.errors.length === 0 ? '' : ` errors ${JSON.stringify(c.errors)}`;
    const order = c.outOfOrder.length === 0 ? '' : ` out of order ${JSON.stringify(c.outOfOrder)}`;
    return `${this.clientID} on ${this.urls.at(-1)}: acked ${this.acked}/${this.total}, sent ${this.sentCount}, socket ${socket}, cookie ${c.cookie}, ${pokes}, ${c.messages.length} frames${errors}${order}${moved}`;
  }

  private open(url: string, baseCookie: number | null, lmid: number): TestClient {
    this.urls.push(url);
    const c = TestClient.connect(url, { roomID: this.roomID, clientID: this.clientID, clientGroupID: this.clientGroupID, baseCookie, lmid });
    c.ws.on('message', () => this.onMessage());
    return c;
  }
}

/**
 * Streams every client's mutations; once a random share (20–70 %) of all of
 * them is acknowledged, starts `disrupt` (kill a node, restart PostgreSQL)
 * without pausing the stream. `disrupted` resolves then, with what each
 * client had seen acknowledged and the disruption under way; `done` once
 * every mutation is acknowledged.
 */
export function streamWithDisruption(
  streams: readonly StreamingClient[],
  total: number,
  disrupt: () => Promise<void>,
): { disrupted: Promise<{ ackedBefore: number[]; disruption: Promise<void> }>; done: Promise<void> } {
  const after = Math.floor(streams.length * total * (0.2 + 0.5 * Math.random()));
  let fired = false;
  let disrupted!: (value: { ackedBefore: number[]; disruption: Promise<void> }) => void;
  const started = new Promise<{ ackedBefore: number[]; disruption: Promise<void> }>((resolve) => (disrupted = resolve));
  const done = new Promise<void>((resolve) => {
    const step = () => {
      if (!fired && streams.reduce((sum, s) => sum + s.acked, 0) >= after) {
        fired = true;
        disrupted({ ackedBefore: streams.map((s) => s.acked), disruption: disrupt() });
      }
      for (const s of streams) s.fill();
      if (streams.every((s) => s.done)) resolve();
    };
    for (const s of streams) s.onMessage = step;
    step();
  });
  return { disrupted: started, done };
}

/** The disruption trials: 3 nodes, 6 clients spread over them, 24 mutations each with 4 in flight, 20 trials. */
export const TRIAL = { nodes: 3, clients: 6, mutations: 24, inFlight: 4, count: 20 } as const;

/** The trial's clients of a fresh room, client i on node i mod the nodes, connected and caught up. */
export async function connectStreams(roomID: string, urls: readonly string[]): Promise<StreamingClient[]> {
  const streams = Array.from({ length: TRIAL.clients }, (_, i) => new StreamingClient(roomID, urls[i % urls.length]!, TRIAL.mutations, TRIAL.inFlight));
  await Promise.all(streams.map((s) => s.client.ready()));
  return streams;
}

/**
 * After a disrupted stream: every client kept what was acknowledged before
 * the disruption (`ackedBefore`, by stream), reaches the state of all
 * `mutations` applied once each, and saw its pokes in order.
 */
export async function expectStreamsConverged(streams: readonly StreamingClient[], ackedBefore: readonly number[], mutations: number): Promise<void> {
  const expected = streamState(streams.map((s) => s.clientID), mutations);
  for (const [i, s] of streams.entries()) {
    expect(s.acked).toBeGreaterThanOrEqual(ackedBefore[i]!);
    await s.client.until(() => hasAppState(s.client, expected), 'the final state');
    expect(s.client.outOfOrder).toEqual([]);
  }
}

/** A trial that made no progress this long (real time) is stuck: it fails with a diagnosis. */
const STALL_MS = 30_000;
/** How often the stall watch looks, and how long the nodes may take to describe themselves. */
const STALL_CHECK_MS = 1000;
const DIAGNOSE_MS = 5000;

/**
 * Watches a trial's streams: while frames arrive, sockets close or the trial
 * moves on to another phase, it is making progress; when nothing of that
 * happened for `stallMs` of real time, `guard` rejects with what each
 * stream saw and what `diagnose` tells of the nodes, instead of the trial
 * waiting for its test's timeout without a word.
 */
export class StallWatch {
  private phaseName = 'starting';
  private phaseStallMs: number;
  private signature = '';
  private lastProgress = Date.now();
  private readonly timer: NodeJS.Timeout;
  private readonly stalled: Promise<never>;
  private fired = false;

  constructor(
    private readonly what: string,
    private readonly streams: readonly StreamingClient[],
    private readonly diagnose: () => Promise<string>,
    private readonly stallMs = STALL_MS,
  ) {
    this.phaseStallMs = stallMs;
    let reject!: (error: Error) => void;
    this.stalled = new Promise<never>((_, r) => (reject = r));
    this.stalled.catch(() => {});
    this.timer = setInterval(() => {
      const now = Date.now();
      const signature = this.progressSignature();
      if (signature !== this.signature) {
        this.signature = signature;
        this.lastProgress = now;
      } else if (!this.fired && now - this.lastProgress >= this.phaseStallMs) {
        this.fired = true;
        this.stop();
        void this.diagnosis().then((text) => reject(new Error(text)));
      }
    }, STALL_CHECK_MS);
  }

  /**
   * The trial moved on to `name` (progress in itself). A phase that waits on
   * something outside the streams (e.g. a database restarting: no frame
   * arrives meanwhile) gives itself `stallMs` of its own.
   */
  phase(name: string, stallMs = this.stallMs): void {
    this.phaseName = name;
    this.phaseStallMs = stallMs;
  }

  /** `work`, or the stall's diagnosis if the trial stops making progress first. */
  guard<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.stalled]);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private progressSignature(): string {
    const clients = this.streams.flatMap((s) => [...s.earlier, s.client]);
    return `${this.phaseName}|${clients.map((c) => `${c.messages.length}${c.closed ? 'x' : ''}`).join(',')}`;
  }

  private async diagnosis(): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    const nodes = await Promise.race([
      this.diagnose().catch((error: unknown) => `(could not describe the nodes: ${String(error)})`),
      new Promise<string>((resolve) => (timer = setTimeout(() => resolve('(the nodes did not answer in time)'), DIAGNOSE_MS))),
    ]);
    clearTimeout(timer);
    return [
      `${this.what} made no progress for ${this.phaseStallMs / 1000} s while ${this.phaseName}`,
      'streams:',
      ...this.streams.map((s) => `  ${s.describe()}`),
      nodes,
    ].join('\n');
  }
}
