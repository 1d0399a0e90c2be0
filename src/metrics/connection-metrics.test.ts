import { describe, expect, it } from 'vitest';
import { INITIAL_TIME_TO_CONNECT_MS } from '../../protocol/constants';
import { ConnectionMetrics } from './connection-metrics';
import { LAST_CONNECT_ERROR, TIME_TO_CONNECT_MS } from './metric-names';
import { noopMetrics } from './metrics';
import { RecordingMetrics } from './recording-metrics';

describe('ConnectionMetrics', () => {
  it('reads the initial time to connect until the first connect, then the measured time', () => {
    const recording = new RecordingMetrics();
    const metrics = new ConnectionMetrics(recording);
    expect(recording.gauges.get(TIME_TO_CONNECT_MS)).toBe(INITIAL_TIME_TO_CONNECT_MS);
    metrics.connectFailed('ConnectTimeout');
    expect(recording.gauges.get(TIME_TO_CONNECT_MS)).toBe(INITIAL_TIME_TO_CONNECT_MS);
    metrics.connected(42);
    expect(recording.gauges.get(TIME_TO_CONNECT_MS)).toBe(42);
  });

  it('keeps the last connect error as a state until a connect succeeds', () => {
    const recording = new RecordingMetrics();
    const metrics = new ConnectionMetrics(recording);
    metrics.connectFailed('AbruptClose');
    metrics.connectFailed('Unauthorized');
    expect(recording.states.get(LAST_CONNECT_ERROR)).toBe('Unauthorized');
    metrics.connected(10);
    expect(recording.states.has(LAST_CONNECT_ERROR)).toBe(false);
  });

  it('works over the no-op default', () => {
    const metrics = new ConnectionMetrics(noopMetrics);
    expect(() => metrics.connected(1)).not.toThrow();
  });
});
