import { describe, expect, it } from 'vitest';
import { originAllowed } from './origin-policy';

const strict = { allowed: [], loopback: false };
const dev = { allowed: [], loopback: true };

describe('originAllowed', () => {
  it('allows non-browser clients (no Origin) and the page\'s own origin', () => {
    expect(originAllowed(undefined, 'rooms.example.com', strict)).toBe(true);
    expect(originAllowed('https://rooms.example.com', 'rooms.example.com', strict)).toBe(true);
    expect(originAllowed('https://ROOMS.example.com', 'rooms.example.com', strict)).toBe(true);
  });

  it('refuses other sites, malformed and opaque origins', () => {
    expect(originAllowed('https://evil.example', 'rooms.example.com', strict)).toBe(false);
    expect(originAllowed('https://evil.example', '127.0.0.1:8080', dev)).toBe(false);
    expect(originAllowed('null', 'rooms.example.com', dev)).toBe(false);
    expect(originAllowed('not a url', 'rooms.example.com', dev)).toBe(false);
    expect(originAllowed('http://localhost:5173', 'rooms.example.com', strict)).toBe(false);
  });

  it('allows listed origins, * and (in development) loopback pages', () => {
    expect(originAllowed('https://app.example.com', 'api.example.com', { allowed: ['https://app.example.com/'], loopback: false })).toBe(true);
    expect(originAllowed('https://other.example', 'x', { allowed: ['*'], loopback: false })).toBe(true);
    expect(originAllowed('http://localhost:5173', '127.0.0.1:8080', dev)).toBe(true);
    expect(originAllowed('http://[::1]:3000', '127.0.0.1:8080', dev)).toBe(true);
  });
});
