#!/usr/bin/env node
/**
 * `roomsync-conformance [options]`: the server runner (see
 * conformance/server/cli-args.ts); `roomsync-conformance client [options]`:
 * the client runner (conformance/client/cli-args.ts).
 */
const [command] = process.argv.slice(2);
if (command === 'client') {
  process.argv.splice(2, 1);
  await import('./client/cli');
} else {
  await import('./server/cli');
}

export {};
