import type { ClientOptions } from '../factory';
import type { EngineClock } from './engine-clock';
import type { ServerTransport } from './transport';

/** The injected path hands the client its environment; the public-API path fakes the platform globally. */
export type ApiPath = 'injected' | 'public';

/** Who a client is in a scenario: the client under test, or the orphan (another build's tab, local-only). */
export type ClientRole = 'client' | 'orphan';

/** The world a scenario's client lives in: its clock, its sockets, its page. */
export interface ScenarioPlatform {
  readonly clock: EngineClock;
  readonly transport: ServerTransport;
  /** Shows or hides the page to the client under test. */
  setVisible(visible: boolean): void;
  /** What this path adds to the options a client is created with. */
  extendOptions(options: ClientOptions, role: ClientRole): ClientOptions;
  dispose(): Promise<void>;
}
