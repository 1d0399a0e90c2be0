import { vi } from 'vitest';

/**
 * Object stores without getAllRecords (Firefox, Safari, Chromium < 141, an
 * older shim), while the global prototype still has it. Undone by vi.restoreAllMocks().
 */
export function objectStoresWithoutGetAllRecords(): void {
  const objectStore = IDBTransaction.prototype.objectStore;
  vi.spyOn(IDBTransaction.prototype, 'objectStore').mockImplementation(function (this: IDBTransaction, name: string) {
    const os = objectStore.call(this, name);
    Object.defineProperty(os, 'getAllRecords', { value: undefined });
    return os;
  });
}
