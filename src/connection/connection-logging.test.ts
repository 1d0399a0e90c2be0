import { describe, expect, it } from 'vitest';
import { Logger } from '../logging/logger';
import type { LogContext, LogLevel, LogSink } from '../logging/log-sink';
import { RECONNECT_JITTER_MAX_MS } from './backoff';
import { Connection } from './connection';
import { FakeClock } from './testing/fake-clock';
import { FakeSocketServer } from './testing/fake-socket';
import { seededRandom } from './testing/harness';
import { ManualSource } from './testing/manual-source';
import { ModelSyncTarget } from './testing/model-sync-target';

function setup(level: LogLevel) {
  const lines: { level: LogLevel; context: LogContext | undefined; args: unknown[] }[] = [];
  const sink: LogSink = { log: (lineLevel, context, ...args) => lines.push({ level: lineLevel, context, args }) };
  const clock = new FakeClock();
  const server = new FakeSocketServer();
  const target = new ModelSyncTarget('c1');
  const connection = new Connection({
    socketOrigin: 'ws://x',
    clientID: 'c1',
    clientGroupID: 'g1',
    roomID: 'r1',
    schemaVersion: '1',
    syncTarget: target,
    environment: { clock, timers: clock, random: seededRandom(3), WebSocket: server.WebSocket, visibility: new ManualSource(), network: new ManualSource() },
    logger: new Logger(level, [sink]),
  });
  connection.start();
  return { lines, clock, server, target, connection };
}

describe('connection logging', () => {
  it('puts roomID, clientID and the wsid in the context; the requestID for pushes and pokes', async () => {
    const { lines, clock, server, target } = setup('debug');
    await clock.advance(0);
    const socket = server.last;
    socket.connect();
    target.mutate('m');
    await clock.advance(0);
    socket.deliver(['poke', { baseCookie: null, cookie: 1, lastMutationIDChanges: { c1: 1 }, patch: [], requestID: 'poke-req' }]);
    await clock.advance(0);
    socket.drop();
    const find = (text: string) => lines.find((line) => String(line.args[0]).startsWith(text));
    expect(find('Connected')?.context).toEqual({ clientID: 'c1', roomID: 'r1', wsid: socket.wsid });
    expect(find('Pushed 1 mutation')?.context).toMatchObject({ wsid: socket.wsid, requestID: expect.stringMatching(/^[\w-]{21}$/) });
    expect(find('Applied poke')?.context).toMatchObject({ wsid: socket.wsid, requestID: 'poke-req' });
    expect(find('Disconnected: AbruptClose')).toMatchObject({ level: 'info', context: { wsid: socket.wsid } });
  });

  it('logs a dropped connection as info and a failed reconnect attempt as warn', async () => {
    const { lines, clock, server } = setup('warn');
    await clock.advance(0);
    server.last.connect();
    server.last.drop();
    expect(lines).toEqual([]);
    await clock.advance(RECONNECT_JITTER_MAX_MS);
    server.last.drop();
    expect(lines.map((line) => [line.level, line.args[0]])).toEqual([['warn', 'Could not connect: AbruptClose']]);
  });

  it('keeps the error level for what stops the client syncing', async () => {
    const { lines, clock, server } = setup('error');
    await clock.advance(0);
    server.last.connect();
    server.last.drop();
    await clock.advance(RECONNECT_JITTER_MAX_MS);
    server.last.error('VersionNotSupported');
    expect(lines.map((line) => [line.level, line.args[0]])).toEqual([['error', 'Stopped connecting: UpdateNeeded']]);
  });
});
