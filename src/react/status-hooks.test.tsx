// @vitest-environment jsdom
import { act, cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { alwaysOn } from '../connection/default-environment';
import { FakeClock } from '../connection/testing/fake-clock';
import { FakeSocketServer } from '../connection/testing/fake-socket';
import { seededRandom } from '../connection/testing/harness';
import type { WriteTransaction } from '../db/transaction-types';
import { MemoryKvProvider } from '../kv/memory-provider';
import { Reflect } from '../reflect';
import { useConnectionStatus } from './use-connection-status';
import { usePendingMutationCount } from './use-pending-mutation-count';

const mutators = {
  put: async (tx: WriteTransaction, args: { key: string; value: number }) => {
    await tx.put(args.key, args.value);
  },
};

let n = 0;
const clients: Reflect<typeof mutators>[] = [];
afterEach(async () => {
  cleanup();
  for (const r of clients.splice(0)) await r.close();
});

function client() {
  const clock = new FakeClock(1000);
  const server = new FakeSocketServer(() => clock.now());
  const r = new Reflect({
    userID: 'u',
    roomID: 'room',
    socketOrigin: 'ws://sync.test',
    mutators,
    logSinks: [],
    environment: { clock, timers: clock, random: seededRandom(n), WebSocket: server.WebSocket, visibility: alwaysOn, network: alwaysOn },
    kvStore: new MemoryKvProvider(`status-hooks-${++n}`),
  });
  clients.push(r);
  return { r, clock, server };
}

function Status({ r, renders }: { r: Reflect<typeof mutators>; renders: string[] }) {
  const status = useConnectionStatus(r);
  const pending = usePendingMutationCount(r);
  renders.push(`${status.state}/${pending}`);
  return (
    <span data-testid="status">
      {status.state} {status.reason ?? ''} {pending}
    </span>
  );
}

describe('useConnectionStatus and usePendingMutationCount', () => {
  it('follow the client: connecting, connected, pending edits, acknowledgement, disconnect', async () => {
    const { r, clock, server } = client();
    const renders: string[] = [];
    const view = render(<Status r={r} renders={renders} />);
    const text = () => view.getByTestId('status').textContent!.replace(/\s+/g, ' ').trim();
    await act(() => clock.advance(0));
    expect(text()).toBe('connecting 0');
    await act(async () => server.last.connect());
    expect(text()).toBe('connected 0');
    await act(async () => {
      r.disconnect();
      await r.mutate.put({ key: 'a', value: 1 });
      await clock.advance(0);
    });
    expect(text()).toBe('disconnected ClientDisconnected 1');
    const before = renders.length;
    await act(() => clock.advance(60_000));
    expect(renders.length).toBe(before);
    view.unmount();
  });

  it('report a disconnected, empty state without a client', () => {
    function Empty() {
      const status = useConnectionStatus(null);
      const pending = usePendingMutationCount(undefined);
      return <span data-testid="empty">{`${status.state} ${status.online} ${pending}`}</span>;
    }
    expect(render(<Empty />).getByTestId('empty').textContent).toBe('disconnected false 0');
  });
});
