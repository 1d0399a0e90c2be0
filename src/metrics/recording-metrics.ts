import type { Metrics } from './metrics';

/** A Metrics that keeps every report in memory: for tests and debugging. */
export class RecordingMetrics implements Metrics {
  readonly gauges = new Map<string, number>();
  readonly states = new Map<string, string>();
  readonly history: string[] = [];

  gauge(name: string) {
    return {
      set: (value: number) => {
        this.gauges.set(name, value);
        this.history.push(`${name}=${value}`);
      },
    };
  }

  state(name: string) {
    return {
      set: (state: string) => {
        this.states.set(name, state);
        this.history.push(`${name}=${state}`);
      },
      clear: () => {
        this.states.delete(name);
        this.history.push(`${name} cleared`);
      },
    };
  }
}
