import { usePendingMutationCount } from '../../src/react/index';
import type { DemoClient } from './client';

export function PendingBadge({ client }: { readonly client: DemoClient }) {
  const pending = usePendingMutationCount(client);
  return (
    <span className={pending === 0 ? 'pending synced' : 'pending'} data-testid="pending" data-count={pending}>
      {pending === 0 ? 'All changes synced' : `${pending} unsynced change${pending === 1 ? '' : 's'}`}
    </span>
  );
}
