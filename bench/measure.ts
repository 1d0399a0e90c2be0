/** Tiny benchmark helpers: repeat a body for a time budget, keep the median of several rounds. */
import { performance } from 'node:perf_hooks';

export interface Timing {
  /** Median time per call in microseconds. */
  readonly microsPerOp: number;
  readonly ops: number;
}

export function timeSync(body: () => void, { rounds = 7, roundMillis = 150 } = {}): Timing {
  for (let i = 0; i < 50; i++) body();
  const perOp: number[] = [];
  let ops = 0;
  for (let round = 0; round < rounds; round++) {
    let count = 0;
    const start = performance.now();
    let elapsed = 0;
    do {
      body();
      count++;
      elapsed = performance.now() - start;
    } while (elapsed < roundMillis);
    perOp.push((elapsed * 1000) / count);
    ops += count;
  }
  return { microsPerOp: median(perOp), ops };
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function printTable(title: string, header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

export const fixed = (value: number, digits = 2) => value.toFixed(digits);
