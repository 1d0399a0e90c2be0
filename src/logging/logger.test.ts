import { describe, expect, it } from 'vitest';
import type { LogContext, LogLevel, LogSink } from './log-sink';
import { Logger } from './logger';
import { createConsoleSink } from './console-sink';

function recordingSink(): LogSink & { lines: [LogLevel, LogContext | undefined, unknown[]][] } {
  const lines: [LogLevel, LogContext | undefined, unknown[]][] = [];
  return { lines, log: (level, context, ...args) => lines.push([level, context, args]) };
}

describe('Logger', () => {
  it('writes the enabled levels to every sink, with its context', () => {
    const a = recordingSink();
    const b = recordingSink();
    const logger = new Logger('info', [a, b], { roomID: 'r1' });
    logger.error?.('bad', 1);
    logger.info?.('note');
    logger.debug?.('noise');
    expect(a.lines).toEqual([
      ['error', { roomID: 'r1' }, ['bad', 1]],
      ['info', { roomID: 'r1' }, ['note']],
    ]);
    expect(b.lines).toEqual(a.lines);
  });

  it('leaves disabled levels undefined so their arguments are never evaluated', () => {
    const logger = new Logger('error', [recordingSink()]);
    let evaluated = false;
    logger.debug?.((evaluated = true));
    logger.info?.((evaluated = true));
    expect(evaluated).toBe(false);
    expect(logger.debug).toBeUndefined();
    expect(new Logger('debug', [recordingSink()]).debug).toBeTypeOf('function');
  });

  it('adds context without changing the parent', () => {
    const sink = recordingSink();
    const parent = new Logger('debug', [sink], { roomID: 'r1', clientID: 'c1' });
    const child = parent.withContext('wsid', 'w1').withContext('requestID', 'q1');
    child.debug?.('x');
    parent.debug?.('y');
    expect(sink.lines.map(([, context]) => context)).toEqual([
      { roomID: 'r1', clientID: 'c1', wsid: 'w1', requestID: 'q1' },
      { roomID: 'r1', clientID: 'c1' },
    ]);
  });

  it('flushes the sinks that can', async () => {
    let flushed = 0;
    const logger = new Logger('info', [recordingSink(), { log() {}, flush: async () => void flushed++ }]);
    await logger.flush();
    expect(flushed).toBe(1);
  });
});

describe('console sink', () => {
  it('writes to the console method of the level, context first', () => {
    const calls: unknown[][] = [];
    const target = {
      error: (...args: unknown[]) => calls.push(['error', ...args]),
      info: (...args: unknown[]) => calls.push(['info', ...args]),
      debug: (...args: unknown[]) => calls.push(['debug', ...args]),
    };
    const sink = createConsoleSink(target);
    sink.log('error', { roomID: 'r', wsid: undefined, n: 2 }, 'boom');
    sink.log('info', undefined, 'plain');
    expect(calls).toEqual([
      ['error', 'roomID=r n=2', 'boom'],
      ['info', 'plain'],
    ]);
  });
});
