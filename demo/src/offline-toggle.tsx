import { useState } from 'react';
import type { DemoClient } from './client';
import { isOfflineByChoice, setOfflineByChoice } from './offline-choice';

/** Closes the socket on purpose (local edits go on), and opens it again. Survives a reload. */
export function OfflineToggle({ client }: { readonly client: DemoClient }) {
  const [offline, setOffline] = useState(isOfflineByChoice);
  return (
    <button
      type="button"
      className="toggle"
      data-testid="offline-toggle"
      aria-pressed={offline}
      onClick={() => {
        if (offline) client.reconnect();
        else client.disconnect();
        setOfflineByChoice(!offline);
        setOffline(!offline);
      }}
    >
      {offline ? 'Go online' : 'Go offline'}
    </button>
  );
}
