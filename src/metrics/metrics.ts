/** A number that is replaced on each report (e.g. the time to connect). */
export interface Gauge {
  set(value: number): void;
}

/** A named condition that is either set to one state or clear (e.g. the last connect error). */
export interface StateMetric {
  set(state: string): void;
  clear(): void;
}

/** What the client reports metrics to. Inject one to ship them somewhere; the default does nothing. */
export interface Metrics {
  gauge(name: string): Gauge;
  state(name: string): StateMetric;
  flush?(): Promise<void> | void;
}

const noopGauge: Gauge = { set() {} };
const noopState: StateMetric = { set() {}, clear() {} };

export const noopMetrics: Metrics = {
  gauge: () => noopGauge,
  state: () => noopState,
};
