import { describe, expect, it } from 'vitest';
import { createJSONLogger } from './logger';

describe('createJSONLogger', () => {
  it('writes one JSON object per line at or above its level', () => {
    const lines: string[] = [];
    const log = createJSONLogger({ level: 'info', write: (l) => lines.push(l), now: () => 0 });
    log.debug('hidden');
    log.info('hello', { roomID: 'r' });
    log.error('boom', { error: new TypeError('bad') });
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.endsWith('\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
    expect(JSON.parse(lines[0]!)).toEqual({ time: '1970-01-01T00:00:00.000Z', level: 'info', msg: 'hello', roomID: 'r' });
    expect(JSON.parse(lines[1]!).error).toMatchObject({ name: 'TypeError', message: 'bad' });
  });
});
