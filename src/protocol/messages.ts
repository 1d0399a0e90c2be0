import type {
  ConnectedMessage,
  ErrorMessage,
  PingMessage,
  PokeMessage,
  PongMessage,
  PullRequestMessage,
  PullResponseMessage,
  PushMessage,
} from './generated/types';

/** Client → server. */
export type Upstream = PingMessage | PushMessage | PullRequestMessage;
/** Server → client. */
export type Downstream = ConnectedMessage | PongMessage | PokeMessage | PullResponseMessage | ErrorMessage;

export type UpstreamName = Upstream[0];
export type DownstreamName = Downstream[0];
