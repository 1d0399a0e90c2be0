import { CheckFailure } from '../shared/check-failure';
import { withDeadline } from '../shared/deadline';
import type { ConformanceEnvironment } from '../shared/environment';
import type { RoomCreation } from './config';

const PLACEHOLDER = /\{roomID\}/g;
const SHOWN_BODY_CHARS = 200;

/** The request that creates `roomID`: `{roomID}` replaced in the url (URL-encoded), header values and body. */
export function roomCreationRequest(
  spec: RoomCreation,
  roomID: string,
): { url: string; init: { method: string; headers: Record<string, string>; body?: string } } {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(spec.headers ?? {})) headers[name] = value.replace(PLACEHOLDER, roomID);
  const init: { method: string; headers: Record<string, string>; body?: string } = { method: spec.method, headers };
  if (spec.body !== undefined) {
    if (typeof spec.body === 'string') init.body = spec.body.replace(PLACEHOLDER, roomID);
    else {
      init.body = JSON.stringify(substitute(spec.body, roomID));
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
  }
  return { url: spec.url.replace(PLACEHOLDER, encodeURIComponent(roomID)), init };
}

/** Creates a room with the configured HTTP call; a non-2xx answer fails the check that needed the room. */
export async function createRoom(env: ConformanceEnvironment, spec: RoomCreation, roomID: string, timeoutMs: number): Promise<void> {
  const { url, init } = roomCreationRequest(spec, roomID);
  let response;
  try {
    response = await withDeadline(env.fetch(url, init), timeoutMs, env.clock, `the room creation call ${init.method} ${url}`);
  } catch (error) {
    if (error instanceof CheckFailure) throw error;
    throw new CheckFailure(`room creation failed: ${init.method} ${url}: ${(error as Error).message}`);
  }
  if (response.status < 200 || response.status >= 300) {
    const body = await response.text().catch(() => '');
    throw new CheckFailure(`room creation failed: ${init.method} ${url}`, 'a 2xx answer', `HTTP ${response.status} ${body.slice(0, SHOWN_BODY_CHARS)}`);
  }
}

function substitute(value: unknown, roomID: string): unknown {
  if (typeof value === 'string') return value.replace(PLACEHOLDER, roomID);
  if (Array.isArray(value)) return value.map((item) => substitute(item, roomID));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, roomID)]));
  }
  return value;
}
