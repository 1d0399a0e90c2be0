/** Our client, leaving a promise rejection unhandled at every mutation (as a client that logs by rejecting would). */
import { capabilities as ourCapabilities, createClient as ours, type ClientFactory } from '../factory';

export const createClient: ClientFactory = (options) => {
  const client = ours(options);
  const mutate = Object.fromEntries(
    Object.entries(client.mutate).map(([name, mutator]) => [
      name,
      (args: never) => {
        void Promise.reject(new Error(`${name} logged by rejecting`));
        return mutator(args);
      },
    ]),
  );
  return Object.defineProperty(client, 'mutate', { value: mutate });
};

export const capabilities = ourCapabilities;
