/**
 * What a client may have beyond the public API of SPEC.md (the options of
 * SPEC §3, mutate, query/subscribe, online, close, clientID, clientGroupID).
 * A client module declares which it has; a scenario that needs one the client
 * lacks is skipped with the reason, never failed.
 */
import type { Scenario, Step } from './scenario';

export const CAPABILITIES = {
  pendingMutationCount: 'the pendingMutationCount property',
  connectionStatus: 'the connectionStatus property (its state: disconnected, connecting or connected)',
  reconnect: 'a reconnect() method',
  disconnect: 'a disconnect() method',
  environment: 'the environment option (injected clock, timers, random, WebSocket, visibility, network) and the kvStore option: the injected path',
  onUpdateNeeded: "the onUpdateNeeded option (SPEC §8 names an 'update needed' callback, not the option)",
  onClientStateNotFound: 'the onClientStateNotFound option (SPEC §8 names a client-state-not-found callback, not the option)',
  sharedLocalStore:
    'a local store shared by two clients of one process with the same userID and roomID (as tabs share IndexedDB), and a local-only client with socketOrigin: null',
} as const;

export type Capability = keyof typeof CAPABILITIES;

export const ALL_CAPABILITIES = Object.keys(CAPABILITIES) as readonly Capability[];

/** Ours has every one. */
export const OUR_CAPABILITIES: readonly Capability[] = ALL_CAPABILITIES;

export function isCapability(name: string): name is Capability {
  return Object.hasOwn(CAPABILITIES, name);
}

/**
 * A comma-separated list of capabilities ("none" for the public API only).
 * Throws on an unknown name, listing the known ones.
 */
export function parseCapabilities(text: string): Capability[] {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '' && name !== 'none');
  const unknown = names.filter((name) => !isCapability(name));
  if (unknown.length > 0) throw new Error(`unknown capabilities: ${unknown.join(', ')} (known: ${ALL_CAPABILITIES.join(', ')})`);
  return names as Capability[];
}

/** What the scenario cannot do without whatever it declares: its steps call extras, or it needs an orphan. */
export function requiredCapabilities(scenario: Pick<Scenario, 'client' | 'steps'>): Set<Capability> {
  const required = new Set<Capability>();
  if (scenario.client?.orphan !== undefined) required.add('sharedLocalStore');
  for (const step of scenario.steps) for (const capability of requiredByStep(step)) required.add(capability);
  return required;
}

/** What the scenario reads where the client has it, and leaves unchecked where it does not (unless it needs it). */
export function observedCapabilities(scenario: Pick<Scenario, 'steps'>): Set<Capability> {
  const observed = new Set<Capability>();
  for (const step of scenario.steps) {
    if (step.step === 'expectCallback') observed.add(step.name);
    if (step.step !== 'expectClient') continue;
    if (step.pendingMutationCount !== undefined) observed.add('pendingMutationCount');
    if (step.connection !== undefined) observed.add('connectionStatus');
  }
  return observed;
}

/** What the scenario declares it needs, plus what its steps cannot do without (a scenario built by code may declare nothing). */
export function scenarioNeeds(scenario: Scenario): Capability[] {
  return [...new Set([...(scenario.needs ?? []), ...requiredCapabilities(scenario)])];
}

function requiredByStep(step: Step): Capability[] {
  switch (step.step) {
    case 'reconnect':
      return ['reconnect'];
    case 'disconnect':
      return ['disconnect'];
    default:
      return [];
  }
}

/** The reason a scenario is skipped for a client that lacks these. */
export function describeMissing(missing: readonly Capability[]): string {
  return `needs ${missing.map((capability) => CAPABILITIES[capability]).join('; and ')}`;
}
