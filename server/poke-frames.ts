import { TextFrame } from './ws-frame';

/**
 * Poke frames of one batch, encoded and framed once per distinct frame:
 * receivers that get the same baseCookie, the same last mutation ids (their
 * group's, or none) and the same requestID share one frame, so a 100 KB patch
 * to 2,000 sockets is encoded once, not 2,000 times.
 */
export class PokeFrames {
  private readonly frames = new Map<string, TextFrame>();

  constructor(
    private readonly cookie: number,
    private readonly patchJSON: string,
    private readonly timestamp: number,
    private readonly changesByGroup: Readonly<Record<string, Record<string, number>>>,
  ) {}

  frame(baseCookie: number | null, clientGroupID: string, requestID: string): TextFrame {
    const changes = Object.hasOwn(this.changesByGroup, clientGroupID) ? this.changesByGroup[clientGroupID]! : undefined;
    const id = `${baseCookie}\u0000${changes === undefined ? '' : clientGroupID}\u0000${requestID}`;
    let frame = this.frames.get(id);
    if (frame === undefined) {
      frame = new TextFrame(pokeText(baseCookie, this.cookie, changes ?? {}, this.patchJSON, this.timestamp, requestID));
      this.frames.set(id, frame);
    }
    return frame;
  }
}

/** `["poke", {...}]` around a patch that is JSON text already. */
export function pokeText(
  baseCookie: number | null,
  cookie: number,
  lastMutationIDChanges: Record<string, number>,
  patchJSON: string,
  timestamp: number,
  requestID: string,
): string {
  return (
    `["poke",{"baseCookie":${JSON.stringify(baseCookie)},"cookie":${cookie},` +
    `"lastMutationIDChanges":${JSON.stringify(lastMutationIDChanges)},"patch":${patchJSON},` +
    `"timestamp":${timestamp},"requestID":${JSON.stringify(requestID)}}]`
  );
}
