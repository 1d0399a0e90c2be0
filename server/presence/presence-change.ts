/**
 * What the server writes about who is here, as plain data (it crosses to the
 * room's worker). A join writes the client's entry, a leave removes it — only
 * if the entry still names the node that decided the leave, so a node whose
 * client moved to another node never removes it there.
 */
export type PresenceChange =
  | { readonly kind: 'join'; readonly clientID: string; readonly userID: string; readonly node: string }
  | { readonly kind: 'leave'; readonly clientID: string; readonly node: string };
