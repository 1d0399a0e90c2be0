import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Ids } from './ids';

const ids = new Ids((count) => new Uint8Array(randomBytes(count)));

describe('Ids', () => {
  it('makes version-4 UUIDs', () => {
    expect(ids.uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('makes wsids the connect request accepts (21 URL-safe characters)', () => {
    expect(ids.wsid()).toMatch(/^[A-Za-z0-9_-]{21}$/);
  });

  it('is driven by the injected bytes', () => {
    const zeros = new Ids((count) => new Uint8Array(count));
    expect(zeros.suffix()).toBe('AAAAAAAAAA');
    expect(zeros.uuid()).toBe('00000000-0000-4000-8000-000000000000');
  });
});
