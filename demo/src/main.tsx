import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { createClient } from './client';
import { loadIdentity } from './identity';
import { DEFAULT_ROOM, roomFromLocation, roomPath } from './room';
import './styles.css';

const roomID = roomFromLocation();
if (roomID === undefined) {
  location.replace(roomPath(DEFAULT_ROOM));
} else {
  const identity = loadIdentity();
  const { client, updateNeeded } = createClient(identity, roomID);
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App client={client} identity={identity} roomID={roomID} updateNeeded={updateNeeded} />
    </StrictMode>,
  );
}
