import { GlobalFakeClock } from './global-fake-clock';
import { installGlobals } from './global-values';
import { PageDocument } from './page-document';
import type { ScenarioPlatform } from './platform';
import { WsTransport } from './ws-transport';

let running = false;

/**
 * The public-API path: the client gets only the options of SPEC §3; the
 * engine fakes its platform globally instead. The clock (setTimeout,
 * setInterval, Date, performance) is @sinonjs/fake-timers; the global
 * WebSocket is `ws` (counting its frames) connected to the scripted server
 * on loopback; the global `document` tells page visibility. Faking globals,
 * it runs one scenario at a time.
 */
export async function startPublicPlatform(visible: boolean): Promise<ScenarioPlatform> {
  if (running) throw new Error('a public-API scenario is already running in this process: the platform is global, run them one at a time');
  running = true;
  let clock: GlobalFakeClock | undefined;
  let transport: WsTransport;
  try {
    transport = await WsTransport.start(() => clock?.now() ?? 0);
  } catch (error) {
    running = false;
    throw error;
  }
  const page = new PageDocument(visible);
  const restoreGlobals = installGlobals({ WebSocket: transport.WebSocket, document: page });
  clock = GlobalFakeClock.install();
  const installed = clock;
  return {
    clock: installed,
    transport,
    setVisible: (value) => page.setVisible(value),
    extendOptions: (options) => options,
    dispose: async () => {
      installed.uninstall();
      restoreGlobals();
      running = false;
      await transport.close();
    },
  };
}
