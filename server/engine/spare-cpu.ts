import { readFile } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

/**
 * Above this share of time (%, over the last 10 s) that some runnable thread
 * of the machine waited for a CPU, no thread waits for a message by turning
 * its event loop: with no core to spare, the turning thread takes CPU from
 * the very thread it waits for (measured on 2 cores busy with a browser test
 * and a busy loop: push → own poke p50 0.98 ms turning, 0.45 ms sleeping).
 */
export const MAX_CPU_PRESSURE_TO_TURN = 10;

/** `some avg10` of Linux's /proc/pressure/cpu; undefined when the text has none. */
export function parseCpuPressure(text: string): number | undefined {
  const match = /^some\b.*?\bavg10=(\d+(?:\.\d+)?)/m.exec(text);
  return match === null ? undefined : Number(match[1]);
}

/** Whether the machine has a core to spare: by CPU pressure where the kernel reports it, else by the load average. */
export function hasSpareCore(pressure: number | undefined, load: number, cores: number): boolean {
  return pressure === undefined ? load < cores - 0.5 : pressure < MAX_CPU_PRESSURE_TO_TURN;
}

/** Reads whether the machine has a core to spare, once a second, in the background (no reading yet: it has none). */
export class SpareCoreWatch {
  private spare = false;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(intervalMs = 1000) {
    this.look();
    this.timer = setInterval(() => this.look(), intervalMs);
    this.timer.unref();
  }

  get hasSpareCore(): boolean {
    return this.spare;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private look(): void {
    readFile('/proc/pressure/cpu', 'utf8', (error, text) => {
      this.spare = hasSpareCore(error === null ? parseCpuPressure(text) : undefined, loadavg()[0]!, availableParallelism());
    });
  }
}
