import { describe, expect, it } from 'vitest';
import { lastLine, runCli as runSharedCli } from '../shared/run-cli';
import { parseClientCliArgs, UsageError } from './cli-args';

const runCli = (args: readonly string[]) => runSharedCli('conformance/client/cli.ts', args);

describe('parseClientCliArgs', () => {
  it('reads the options and refuses unknown ones', () => {
    expect(parseClientCliArgs(['--client', './x.ts', '--only', 'a,b', '--ws'])).toEqual({ client: './x.ts', capabilities: undefined, api: undefined, only: 'a,b', transport: 'ws', list: false });
    expect(parseClientCliArgs([])).toEqual({ client: undefined, capabilities: undefined, api: undefined, only: undefined, transport: 'memory', list: false });
    expect(parseClientCliArgs(['--public-api', '--capabilities', 'reconnect, disconnect'])).toMatchObject({ api: 'public', capabilities: ['reconnect', 'disconnect'] });
    expect(parseClientCliArgs(['--capabilities', 'none'])).toMatchObject({ capabilities: [] });
    expect(parseClientCliArgs(['-h'])).toBe('help');
    expect(() => parseClientCliArgs(['--server', 'x'])).toThrow(UsageError);
    expect(() => parseClientCliArgs(['--capabilities', 'telepathy'])).toThrow(/unknown capabilities: telepathy/);
  });
});

describe('npx tsx conformance/client/cli.ts', () => {
  it('exits 0 when every selected scenario passes, ending with "N passed, N failed"', async () => {
    const { code, stdout, stderr } = await runCli(['--only', 'handshake/first-connect,backoff/golden']);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('✓ handshake/first-connect');
    expect(lastLine(stdout)).toBe('2 passed, 0 failed');
  });

  it('exits 1 with the failing step for a broken --client module', async () => {
    const { code, stdout } = await runCli(['--client', 'conformance/client/broken/no-backoff-client.ts', '--only', 'handshake/first-connect,backoff/golden']);
    expect(code).toBe(1);
    expect(stdout).toContain('✗ backoff/golden-trace');
    expect(stdout).toContain('the client connected at t=0 ms');
    expect(lastLine(stdout)).toBe('1 passed, 1 failed');
  });

  it('runs the public-API path with --public-api, and skips what needs an extra the client lacks, with why', async () => {
    const { code, stdout, stderr } = await runCli(['--public-api', '--capabilities', 'none', '--only', 'handshake/first-connect,app/disconnect-reconnect']);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^Client suite, public-API path .*\ncapabilities: none/);
    expect(stdout).toContain('✓ handshake/first-connect (connectionStatus unchecked: the client lacks it)');
    expect(stdout).toContain('– app/disconnect-reconnect (skipped: needs a disconnect() method; and a reconnect() method)');
    expect(lastLine(stdout)).toBe('1 passed, 0 failed');
  });

  it('goes on past a promise rejection the client leaves unhandled', async () => {
    const { code, stdout, stderr } = await runCli(['--client', 'conformance/client/test-fixtures/unhandled-rejection-client.ts', '--only', 'push/order-and-resume,push/before-connected']);
    expect(code, stderr).toBe(0);
    expect(lastLine(stdout)).toBe('2 passed, 0 failed');
  });

  it('exits 2 for a bad command line or a module without createClient', async () => {
    expect((await runCli(['--bogus'])).code).toBe(2);
    expect((await runCli(['--only', 'no-such-scenario'])).code).toBe(2);
    const missing = await runCli(['--client', 'conformance/client/report.ts']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('does not export a createClient(options) function');
  });
});
