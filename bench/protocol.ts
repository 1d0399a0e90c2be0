/**
 * `npm run bench -- protocol`: validated decode of poke frames against bare JSON.parse.
 * Target (issue 2): validated decode within 1.5× of bare JSON.parse.
 */
import { decodeDownstream } from '../src/protocol/codec';
import { fixed, printTable, timeSync } from './measure';

function value(bytes: number, i: number) {
  const base = { id: `item-${i}`, done: i % 2 === 0, order: i, text: '' };
  const overhead = JSON.stringify(base).length;
  return { ...base, text: 'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27)).slice(0, Math.max(0, bytes - overhead)) };
}

function pokeFrame(puts: number, valueBytes: number): string {
  const patch = Array.from({ length: puts }, (_, i) => ({ op: 'put', key: `todo/${String(i).padStart(6, '0')}`, value: value(valueBytes, i) }));
  return JSON.stringify(['poke', { baseCookie: 41, cookie: 42, lastMutationIDChanges: { 'client-a': 17 }, patch, timestamp: 1732186000000, requestID: 'req-1' }]);
}

export async function runProtocolBench(): Promise<void> {
  const frames = [
    { name: 'poke 10 puts × 100 B', text: pokeFrame(10, 100) },
    { name: 'catch-up poke 1000 puts × 1 KB', text: pokeFrame(1000, 1024) },
  ];
  const rows: string[][] = [];
  for (const { name, text } of frames) {
    const bytes = Buffer.byteLength(text);
    const parse = timeSync(() => JSON.parse(text));
    const decode = timeSync(() => decodeDownstream(text));
    const mbps = (timing: { microsPerOp: number }) => fixed(bytes / timing.microsPerOp, 0);
    rows.push([
      `${name} (${fixed(bytes / 1024, 1)} KiB)`,
      fixed(decode.microsPerOp, 1),
      mbps(decode),
      fixed(parse.microsPerOp, 1),
      mbps(parse),
      `${fixed(decode.microsPerOp / parse.microsPerOp)}×`,
    ]);
  }
  printTable(
    'protocol: decode + validate vs bare JSON.parse (target ≤ 1.5×)',
    ['frame', 'decode µs', 'decode MB/s', 'JSON.parse µs', 'JSON.parse MB/s', 'ratio'],
    rows,
  );
}
