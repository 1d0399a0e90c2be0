import { Reflect } from '../../src/index';
import { demoMutators } from '../shared/mutators';
import type { Identity } from './identity';
import { isOfflineByChoice } from './offline-choice';

/** A tiny observable flag for the 'update needed' banner. */
export interface Flag {
  get(): boolean;
  subscribe(listener: () => void): () => void;
}

function createFlag(): Flag & { set(): void } {
  let value = false;
  const listeners = new Set<() => void>();
  return {
    get: () => value,
    set() {
      value = true;
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** One client per page: the app owns it; components only read from it. */
export function createClient(identity: Identity, roomID: string) {
  const updateNeeded = createFlag();
  const socketOrigin = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}`;
  const client = new Reflect({
    userID: identity.userID,
    roomID,
    socketOrigin,
    auth: identity.userID,
    schemaVersion: '1',
    mutators: demoMutators,
    logLevel: 'info',
    // Show a banner instead of reloading under the user's fingers.
    onUpdateNeeded: () => updateNeeded.set(),
  });
  // Everyone in the room sees this tab's user by name and colour.
  client.setPresence({ name: identity.name, color: identity.color });
  if (isOfflineByChoice()) client.disconnect();
  Object.assign(window, { roomsyncClient: client });
  return { client, updateNeeded };
}

export type DemoClient = ReturnType<typeof createClient>['client'];
