export { noopMetrics, type Gauge, type Metrics, type StateMetric } from './metrics';
export { LAST_CONNECT_ERROR, TIME_TO_CONNECT_MS } from './metric-names';
export { ConnectionMetrics } from './connection-metrics';
export { RecordingMetrics } from './recording-metrics';
