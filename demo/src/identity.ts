/** Who is using this browser: a stable name and colour, kept in localStorage. */

const ADJECTIVES = ['Amber', 'Brisk', 'Calm', 'Dapper', 'Eager', 'Fuzzy', 'Gentle', 'Happy', 'Jolly', 'Keen', 'Lucky', 'Mellow', 'Nimble', 'Plucky', 'Quiet', 'Sunny'];
const ANIMALS = ['Otter', 'Fox', 'Heron', 'Lynx', 'Panda', 'Robin', 'Seal', 'Tapir', 'Wren', 'Yak', 'Koala', 'Moose', 'Gecko', 'Ibis', 'Marten', 'Newt'];
const COLORS = ['#e8590c', '#2f9e44', '#1971c2', '#9c36b5', '#e03131', '#0c8599', '#f08c00', '#5f3dc4', '#c2255c', '#099268'];

export interface Identity {
  readonly userID: string;
  readonly name: string;
  readonly color: string;
}

const STORAGE_KEY = 'roomsync-demo-identity';

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

export function colorFor(userID: string): string {
  return COLORS[hash(userID) % COLORS.length]!;
}

function pick<T>(items: readonly T[]): T {
  return items[Math.floor(Math.random() * items.length)]!;
}

export function loadIdentity(storage: Storage = localStorage): Identity {
  const forced = new URLSearchParams(location.search).get('user');
  const stored = storage.getItem(STORAGE_KEY);
  if (forced) return { userID: forced, name: forced, color: colorFor(forced) };
  if (stored) {
    try {
      const parsed = JSON.parse(stored) as Identity;
      if (parsed.userID && parsed.name && parsed.color) return parsed;
    } catch {
      // fall through to a new identity
    }
  }
  const name = `${pick(ADJECTIVES)} ${pick(ANIMALS)}`;
  const userID = `${name.toLowerCase().replace(' ', '-')}-${Math.random().toString(36).slice(2, 6)}`;
  const identity = { userID, name, color: colorFor(userID) };
  storage.setItem(STORAGE_KEY, JSON.stringify(identity));
  return identity;
}
