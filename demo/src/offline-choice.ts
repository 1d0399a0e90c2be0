/** Whether the user chose to work offline in this tab; kept across reloads (sessionStorage). */
const KEY = 'roomsync-demo-offline';

export function isOfflineByChoice(): boolean {
  return sessionStorage.getItem(KEY) === '1';
}

export function setOfflineByChoice(offline: boolean): void {
  if (offline) sessionStorage.setItem(KEY, '1');
  else sessionStorage.removeItem(KEY);
}
