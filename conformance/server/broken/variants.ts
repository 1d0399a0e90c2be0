import type { Mutation, PokeBody } from '../../../src/protocol';
import type { ProxiedConnection, ProxyHooks } from './mitm-proxy';

/**
 * Deliberately broken servers: hooks for the man-in-the-middle proxy that make
 * a correct server misbehave in one known way, so tests can prove the runner
 * notices. Each factory returns fresh state.
 */

type Frame = [string, ...unknown[]];

function parse(text: string): Frame | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && typeof value[0] === 'string' ? (value as Frame) : undefined;
  } catch {
    return undefined;
  }
}

/** The mutations of a well-formed push frame; undefined for anything else (malformed frames pass untouched). */
function pushedMutations(frame: Frame | undefined): Mutation[] | undefined {
  if (frame?.[0] !== 'push') return undefined;
  const mutations = (frame[1] as { mutations?: unknown } | null)?.mutations;
  return Array.isArray(mutations) ? (mutations as Mutation[]) : undefined;
}

/** (a) Every client gets every pusher's last mutation id, whatever its group. */
export function leakAcksToAllGroups(): ProxyHooks {
  const pushedByRoom = new Map<string, Map<string, number>>();
  const room = (connection: ProxiedConnection) => connection.query.get('roomID') ?? '';
  return {
    upstream(text, connection) {
      const mutations = pushedMutations(parse(text));
      if (mutations !== undefined) {
        let pushed = pushedByRoom.get(room(connection));
        if (pushed === undefined) pushedByRoom.set(room(connection), (pushed = new Map()));
        for (const m of mutations) pushed.set(m.clientID, Math.max(m.id, pushed.get(m.clientID) ?? 0));
      }
      return [text];
    },
    downstream(text, connection) {
      const frame = parse(text);
      if (frame?.[0] !== 'poke') return [text];
      const body = frame[1] as PokeBody;
      const leaked = Object.fromEntries(pushedByRoom.get(room(connection)) ?? []);
      return [JSON.stringify(['poke', { ...body, lastMutationIDChanges: { ...leaked, ...body.lastMutationIDChanges } }])];
    },
  };
}

/** (b) Mutation ids are renumbered on the way in, so a re-sent mutation reaches the server as a new one and runs twice. */
export function applyDuplicatesTwice(): ProxyHooks {
  const clients = new Map<string, { next: number; toClientID: Map<number, number>; latestServerID: Map<number, number> }>();
  const stateOf = (clientID: string) => {
    let state = clients.get(clientID);
    if (state === undefined) clients.set(clientID, (state = { next: 0, toClientID: new Map(), latestServerID: new Map() }));
    return state;
  };
  const toClientIDs = (changes: Record<string, number>) =>
    Object.fromEntries(Object.entries(changes).map(([clientID, id]) => [clientID, stateOf(clientID).toClientID.get(id) ?? id]));
  return {
    rewriteConnectPath(pathAndQuery) {
      const url = new URL(pathAndQuery, 'ws://proxy.invalid');
      const clientID = url.searchParams.get('clientID');
      const lmid = Number(url.searchParams.get('lmid'));
      if (clientID !== null && lmid > 0) url.searchParams.set('lmid', String(stateOf(clientID).latestServerID.get(lmid) ?? lmid));
      return `${url.pathname}${url.search}`;
    },
    upstream(text) {
      const frame = parse(text);
      const pushed = pushedMutations(frame);
      if (pushed === undefined) return [text];
      const mutations = pushed.map((m) => {
        const state = stateOf(m.clientID);
        const serverID = ++state.next;
        state.toClientID.set(serverID, m.id);
        state.latestServerID.set(m.id, serverID);
        return { ...m, id: serverID };
      });
      return [JSON.stringify(['push', { ...(frame![1] as object), mutations }])];
    },
    downstream(text) {
      const frame = parse(text);
      if (frame?.[0] !== 'poke' && frame?.[0] !== 'pull') return [text];
      const body = frame[1] as { lastMutationIDChanges: Record<string, number> };
      return [JSON.stringify([frame[0], { ...body, lastMutationIDChanges: toClientIDs(body.lastMutationIDChanges) }])];
    },
  };
}

/** (c) The catch-up poke of a reconnecting client loses its `del` (and `clear`) operations. */
export function dropCatchUpDeletes(): ProxyHooks {
  const pokesSeen = new WeakMap<ProxiedConnection, number>();
  return {
    downstream(text, connection) {
      const frame = parse(text);
      if (frame?.[0] !== 'poke' || connection.query.get('baseCookie') === '') return [text];
      const seen = pokesSeen.get(connection) ?? 0;
      pokesSeen.set(connection, seen + 1);
      if (seen > 0) return [text];
      const body = frame[1] as PokeBody;
      return [JSON.stringify(['poke', { ...body, patch: body.patch.filter((op) => op.op === 'put') }])];
    },
  };
}

/** (d) Any protocol version in the connect path is served as v1. */
export function acceptAnyVersion(): ProxyHooks {
  return {
    rewriteConnectPath: (pathAndQuery) => pathAndQuery.replace(/^\/api\/sync\/v[0-9]+\/connect/, '/api/sync/v1/connect'),
  };
}

/** (e) Pokes name a baseCookie one past the cookie they really follow from: the chain breaks. */
export function offByOneBaseCookie(): ProxyHooks {
  return {
    downstream(text) {
      const frame = parse(text);
      if (frame?.[0] !== 'poke') return [text];
      const body = frame[1] as PokeBody;
      if (body.baseCookie === null) return [text];
      return [JSON.stringify(['poke', { ...body, baseCookie: body.baseCookie + 1 }])];
    },
  };
}

/** (f) Pokes carry their cookie as a string: frames that break the protocol schemas. */
export function stringCookies(): ProxyHooks {
  return {
    downstream(text) {
      const frame = parse(text);
      if (frame?.[0] !== 'poke') return [text];
      const body = frame[1] as PokeBody;
      return [JSON.stringify(['poke', { ...body, cookie: String(body.cookie) }])];
    },
  };
}

/** A connect without baseCookie reaches the server with an empty one: the server then reads it as none (correct). */
function withEmptyBaseCookie(pathAndQuery: string): string {
  const url = new URL(pathAndQuery, 'ws://proxy.invalid');
  if (!url.searchParams.has('baseCookie')) url.searchParams.set('baseCookie', '');
  return `${url.pathname}${url.search}`;
}

/** Accepts a connect without baseCookie and reads it as none, like the original server (not broken: the relaxed check passes). */
export function readMissingBaseCookieAsNone(): ProxyHooks {
  return { rewriteConnectPath: withEmptyBaseCookie };
}

/** (g) Accepts a connect without baseCookie but reads it as "up to date": no catch-up, later pokes start from the room's cookie. */
export function readMissingBaseCookieAsCurrent(): ProxyHooks {
  const caughtUp = new WeakSet<ProxiedConnection>();
  return {
    rewriteConnectPath: withEmptyBaseCookie,
    downstream(text, connection) {
      if (connection.query.has('baseCookie') || parse(text)?.[0] !== 'poke' || caughtUp.has(connection)) return [text];
      caughtUp.add(connection);
      return [];
    },
  };
}

/** (h) Recovery pulls are answered as if nothing had changed since any cookie. */
export function pullAnswersNothing(): ProxyHooks {
  return {
    downstream(text) {
      const frame = parse(text);
      if (frame?.[0] !== 'pull') return [text];
      return [JSON.stringify(['pull', { ...(frame[1] as object), lastMutationIDChanges: {} }])];
    },
  };
}

/** (i) Recovery pulls answer each client's id before its last mutation: less than the changes since the cookie. */
export function pullAnswersStaleIDs(): ProxyHooks {
  return {
    downstream(text) {
      const frame = parse(text);
      if (frame?.[0] !== 'pull') return [text];
      const body = frame[1] as { lastMutationIDChanges: Record<string, number> };
      const stale = Object.fromEntries(Object.entries(body.lastMutationIDChanges).map(([clientID, id]) => [clientID, id - 1]));
      return [JSON.stringify(['pull', { ...body, lastMutationIDChanges: stale }])];
    },
  };
}

/** (j) Recovery pulls also name the puller's own clients: ids that are not the pulled group's. */
export function pullLeaksOtherGroups(): ProxyHooks {
  const pullerOf = new WeakMap<ProxiedConnection, string>();
  return {
    upstream(text, connection) {
      pullerOf.set(connection, connection.query.get('clientID') ?? '');
      return [text];
    },
    downstream(text, connection) {
      const frame = parse(text);
      if (frame?.[0] !== 'pull') return [text];
      const body = frame[1] as { lastMutationIDChanges: Record<string, number> };
      return [JSON.stringify(['pull', { ...body, lastMutationIDChanges: { ...body.lastMutationIDChanges, [pullerOf.get(connection) ?? 'puller']: 1 } }])];
    },
  };
}

/** Recovery pulls also carry every id an earlier answer on the connection gave (unchanged ids: allowed, not broken). */
export function pullAddsUnchangedIDs(): ProxyHooks {
  const known = new WeakMap<ProxiedConnection, Record<string, number>>();
  return {
    downstream(text, connection) {
      const frame = parse(text);
      if (frame?.[0] !== 'pull') return [text];
      const body = frame[1] as { lastMutationIDChanges: Record<string, number> };
      const all = { ...known.get(connection), ...body.lastMutationIDChanges };
      known.set(connection, all);
      return [JSON.stringify(['pull', { ...body, lastMutationIDChanges: all }])];
    },
  };
}
