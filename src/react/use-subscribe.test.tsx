// @vitest-environment jsdom
import { act, cleanup, render } from '@testing-library/react';
import { StrictMode } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStore, type Store } from '../db/store';
import type { ReadTransaction, WriteTransaction } from '../db/transaction-types';
import { MemoryStore } from '../kv/memory-store';
import { useSubscribe, type Subscribable } from './use-subscribe';

const mutators = {
  async put(tx: WriteTransaction, { key, value }: { key: string; value: number }) {
    await tx.put(key, value);
  },
};
const quiet = { error() {}, warn() {}, info() {}, debug() {} };

/** The real store, counting the subscriptions that are open. */
function counting(store: Store): Subscribable & { readonly open: number } {
  let open = 0;
  return {
    get open() {
      return open;
    },
    subscribe(body, options) {
      open++;
      const unsubscribe = store.subscribe(body, options);
      let done = false;
      return () => {
        if (!done) open--;
        done = true;
        unsubscribe();
      };
    },
  };
}

let store: Store;
let name = 0;

beforeEach(async () => {
  store = await createStore({ kvStore: new MemoryStore(`react-${++name}`), clientID: 'c', mutators, logger: quiet });
});
afterEach(async () => {
  cleanup();
  await store.close();
});

/** Lets the store's async subscription runs and React's updates finish. */
async function settle(): Promise<void> {
  await act(async () => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  });
}

function Counter({ r, keyName, renders }: { r: Subscribable; keyName: string; renders: { count: number } }) {
  const value = useSubscribe(r, (tx: ReadTransaction) => tx.get(keyName), undefined, [keyName]);
  renders.count++;
  return <span data-testid="value">{value === undefined ? 'none' : String(value)}</span>;
}

describe('useSubscribe', () => {
  it('shows the default, then the data, then every change', async () => {
    const r = counting(store);
    const renders = { count: 0 };
    const view = render(<Counter r={r} keyName="a" renders={renders} />);
    expect(view.getByTestId('value').textContent).toBe('none');
    await act(() => store.mutate('put', { key: 'a', value: 1 }));
    await settle();
    expect(view.getByTestId('value').textContent).toBe('1');
    await act(() => store.mutate('put', { key: 'a', value: 2 }));
    await settle();
    expect(view.getByTestId('value').textContent).toBe('2');
  });

  it('does not re-render for writes it did not read or for equal results', async () => {
    const r = counting(store);
    const renders = { count: 0 };
    await store.mutate('put', { key: 'a', value: 1 });
    const view = render(<Counter r={r} keyName="a" renders={renders} />);
    await settle();
    expect(view.getByTestId('value').textContent).toBe('1');
    const before = renders.count;
    await act(() => store.mutate('put', { key: 'b', value: 5 }));
    await act(() => store.mutate('put', { key: 'a', value: 1 }));
    await settle();
    expect(renders.count).toBe(before);
    await act(() => store.mutate('put', { key: 'a', value: 3 }));
    await settle();
    expect(renders.count).toBe(before + 1);
  });

  it('re-subscribes when deps change and cleans up on unmount', async () => {
    const r = counting(store);
    const renders = { count: 0 };
    await store.mutate('put', { key: 'a', value: 1 });
    await store.mutate('put', { key: 'b', value: 2 });
    const view = render(<Counter r={r} keyName="a" renders={renders} />);
    await settle();
    expect(r.open).toBe(1);
    view.rerender(<Counter r={r} keyName="b" renders={renders} />);
    await settle();
    expect(view.getByTestId('value').textContent).toBe('2');
    expect(r.open).toBe(1);
    view.unmount();
    expect(r.open).toBe(0);
  });

  it('is safe under StrictMode: one live subscription, no leak', async () => {
    const r = counting(store);
    const renders = { count: 0 };
    const view = render(
      <StrictMode>
        <Counter r={r} keyName="a" renders={renders} />
      </StrictMode>,
    );
    await settle();
    expect(r.open).toBe(1);
    await act(() => store.mutate('put', { key: 'a', value: 7 }));
    await settle();
    expect(view.getByTestId('value').textContent).toBe('7');
    view.unmount();
    expect(r.open).toBe(0);
  });
});
