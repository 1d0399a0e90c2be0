/** The room comes from the URL: /r/<roomID>. Anything else goes to the default room. */
export const DEFAULT_ROOM = 'lobby';

export function roomFromLocation(pathname: string = location.pathname): string | undefined {
  const match = /^\/r\/([^/]+)\/?$/.exec(pathname);
  if (!match) return undefined;
  try {
    const room = decodeURIComponent(match[1]!).trim();
    return room.length > 0 && room.length <= 100 ? room : undefined;
  } catch {
    return undefined;
  }
}

export function roomPath(roomID: string): string {
  return `/r/${encodeURIComponent(roomID)}`;
}
