import { describe, expect, it } from 'vitest';
import { hasSpareCore, MAX_CPU_PRESSURE_TO_TURN, parseCpuPressure } from './spare-cpu';

describe('spare cores', () => {
  it('reads the 10 s CPU pressure of /proc/pressure/cpu', () => {
    const text = 'some avg10=40.08 avg60=47.42 avg300=48.23 total=18536295683\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n';
    expect(parseCpuPressure(text)).toBe(40.08);
    expect(parseCpuPressure('some avg10=0.00 avg60=1.00 avg300=2.00 total=1\n')).toBe(0);
    expect(parseCpuPressure('')).toBeUndefined();
    expect(parseCpuPressure('full avg10=3.00 avg60=0.00 avg300=0.00 total=0\n')).toBeUndefined();
  });

  it('has one while threads rarely wait for a CPU, by the load average where there is no pressure figure', () => {
    expect(hasSpareCore(0, 9, 2)).toBe(true);
    expect(hasSpareCore(MAX_CPU_PRESSURE_TO_TURN - 0.01, 9, 2)).toBe(true);
    expect(hasSpareCore(MAX_CPU_PRESSURE_TO_TURN, 0, 2)).toBe(false);
    expect(hasSpareCore(undefined, 1.2, 2)).toBe(true);
    expect(hasSpareCore(undefined, 1.6, 2)).toBe(false);
  });
});
