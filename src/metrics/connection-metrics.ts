import { INITIAL_TIME_TO_CONNECT_MS } from '../../protocol/constants';
import type { Metrics } from './metrics';
import { LAST_CONNECT_ERROR, TIME_TO_CONNECT_MS } from './metric-names';

/** The connection's metrics over any Metrics implementation. */
export class ConnectionMetrics {
  readonly #timeToConnect;
  readonly #lastConnectError;

  constructor(metrics: Metrics) {
    this.#timeToConnect = metrics.gauge(TIME_TO_CONNECT_MS);
    this.#lastConnectError = metrics.state(LAST_CONNECT_ERROR);
    this.#timeToConnect.set(INITIAL_TIME_TO_CONNECT_MS);
  }

  connected(timeToConnectMs: number): void {
    this.#timeToConnect.set(timeToConnectMs);
    this.#lastConnectError.clear();
  }

  connectFailed(reason: string): void {
    this.#lastConnectError.set(reason);
  }
}
