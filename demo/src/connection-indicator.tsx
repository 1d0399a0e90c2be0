import { useEffect, useState } from 'react';
import { useConnectionStatus } from '../../src/react/index';
import type { DemoClient } from './client';

const LABELS = { connected: 'Connected', connecting: 'Connecting…', disconnected: 'Disconnected' } as const;

/** Disconnect reasons (protocol error kinds and close kinds) in words; anything else is shown as it is. */
const REASONS: Record<string, string> = {
  AbruptClose: 'connection lost',
  CleanClose: 'server closed the connection',
  ClientDisconnected: 'offline by choice',
  ConnectTimeout: 'server unreachable',
  PingTimeout: 'server not answering',
  Unauthorized: 'not allowed in',
  AuthInvalidated: 'signed out',
  RoomNotFound: 'no such room',
  RoomClosed: 'room closed',
  Hidden: 'page hidden',
};

/** Seconds until `at`, re-rendering every second while it counts down. */
function useCountdown(at: number | undefined): number | undefined {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (at === undefined) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [at]);
  return at === undefined ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

export function ConnectionIndicator({ client }: { readonly client: DemoClient }) {
  const status = useConnectionStatus(client);
  const seconds = useCountdown(status.state === 'disconnected' ? status.nextRetryAt : undefined);
  const detail =
    status.state === 'disconnected'
      ? [status.reason && (REASONS[status.reason] ?? status.reason), seconds !== undefined ? `retrying in ${seconds}s` : undefined]
          .filter(Boolean)
          .join(' · ')
      : '';
  return (
    <span
      className={`connection ${status.state}`}
      data-testid="connection"
      data-state={status.state}
      data-reason={status.reason}
      role="status"
    >
      <span className="dot" aria-hidden="true" />
      {LABELS[status.state]}
      {detail && <span className="detail">{detail}</span>}
    </span>
  );
}
