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

  it('ranks warn between error and info', () => {
    const sink = recordingSink();
    const logger = new Logger('warn', [sink]);
    logger.error?.('e');
    logger.warn?.('w');
    logger.info?.('i');
    expect(sink.lines.map(([level]) => level)).toEqual(['error', 'warn']);
    expect(new Logger('error', [sink]).warn).toBeUndefined();
    expect(new Logger('info', [sink]).warn).toBeTypeOf('function');
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
  it('writes warnings to console.warn, or to console.error where a console has no warn', () => {
    const calls: unknown[][] = [];
    const write = (name: string) => (...args: unknown[]) => calls.push([name, ...args]);
    createConsoleSink({ error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug') }).log('warn', undefined, 'careful');
    createConsoleSink({ error: write('error'), info: write('info'), debug: write('debug') }).log('warn', { roomID: 'r' }, 'careful');
    expect(calls).toEqual([
      ['warn', 'careful'],
      ['error', 'roomID=r', 'careful'],
    ]);
  });

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
