import type { StuckMutation } from './stuck-board';

/** The environment variable that makes the CLI a room process (its value: the process's slot). */
export const ROOM_PROCESS_ENV = 'ROOMSYNC_ROOM_PROCESS';

/** The extra pipe a room process reports stuck mutations on (after stdin, stdout, stderr and the IPC channel). */
export const STUCK_REPORT_FD = 4;

/** What the acceptor sends a room process. */
export type ToRoomProcess =
  | { readonly kind: 'config'; readonly stuck: readonly StuckMutation[] }
  /** A connect request read by the acceptor, sent with its socket; `head`: bytes read after it (base64). */
  | { readonly kind: 'upgrade'; readonly id: number; readonly method: string; readonly url: string; readonly headers: Record<string, string | string[] | undefined>; readonly head: string }
  | { readonly kind: 'admin'; readonly id: number; readonly method: string; readonly path: string; readonly body: string }
  | { readonly kind: 'shutdown' }
  /** The answer to `take`: refused with the reason, or taken. */
  | { readonly kind: 'taken'; readonly id: number; readonly refused?: string };

/** What a room process sends its acceptor. */
export type FromRoomProcess =
  /** Listening for messages: the acceptor sends the config. */
  | { readonly kind: 'hello' }
  /** Serving: upgrades may come. */
  | { readonly kind: 'ready' }
  /** A socket handed over with `upgrade` arrived (the acceptor closes its copy). */
  | { readonly kind: 'received'; readonly id: number }
  /** A socket handed over with `upgrade` closed. */
  | { readonly kind: 'closed'; readonly id: number }
  | { readonly kind: 'admin-reply'; readonly id: number; readonly status: number; readonly json: unknown }
  /** Count a room creation against the acceptor's windows (rooms per user and per address); `give-back` undoes it. */
  | { readonly kind: 'take'; readonly id: number; readonly userID: string; readonly address: string }
  | { readonly kind: 'give-back'; readonly id: number };
