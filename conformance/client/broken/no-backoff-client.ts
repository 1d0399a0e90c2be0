/**
 * An example `--client` module: our client with the back-off bypassed (through
 * its injected timers, so it declares our capabilities, environment included).
 * `npx tsx conformance/client/cli.ts --client conformance/client/broken/no-backoff-client.ts` fails the back-off scenarios.
 */
import { capabilities as ourCapabilities, createClient as ours, type ClientFactory } from '../factory';
import { brokenVariants } from './variants';

export const createClient: ClientFactory = brokenVariants.find((v) => v.name === 'noBackoff')!.wrap(ours);

export const capabilities = ourCapabilities;
