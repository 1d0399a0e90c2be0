import { usePresence, type PresentUser } from '../../src/react/index';
import type { DemoClient } from './client';
import { colorFor } from './identity';

/** What each tab of the demo tells the room about its user. */
export interface DemoPresenceState {
  readonly name: string;
  readonly color: string;
}

function isDemoState(state: unknown): state is DemoPresenceState {
  return typeof state === 'object' && state !== null && typeof (state as DemoPresenceState).name === 'string' && typeof (state as DemoPresenceState).color === 'string';
}

/** The user's name and colour from any of their tabs; a client that set none (an older one) shows its user id. */
function looks(user: PresentUser): DemoPresenceState {
  for (const { state } of user.clients) if (isDemoState(state)) return state;
  return { name: user.userID, color: colorFor(user.userID) };
}

/** Who is here: one chip per person, however many tabs they have open. */
export function WhoIsHere({ client }: { readonly client: DemoClient }) {
  const { users } = usePresence(client);
  const ordered = [...users.filter((u) => u.isSelf), ...users.filter((u) => !u.isSelf)];
  return (
    <ul className="who" data-testid="presence" aria-label="Who is here" data-count={users.length}>
      {ordered.map((user) => {
        const { name, color } = looks(user);
        const tabs = user.clients.length;
        return (
          <li
            key={user.userID}
            className={`present${user.isSelf ? ' self' : ''}`}
            style={{ ['--user-color' as string]: color }}
            data-testid="present-user"
            data-user-id={user.userID}
            data-tabs={tabs}
            title={tabs > 1 ? `${name} (${tabs} tabs)` : name}
          >
            <span className="avatar" aria-hidden="true">
              {name.slice(0, 1).toUpperCase()}
            </span>
            <span className="name">{user.isSelf ? `${name} (you)` : name}</span>
            {tabs > 1 && <span className="tabs">×{tabs}</span>}
          </li>
        );
      })}
    </ul>
  );
}
