/** What one transaction read, kept to decide later whether a change can affect it. */

export interface ScanRecord {
  readonly indexName: string | undefined;
  readonly prefix: string;
  readonly fromKey: string;
  /** The last map key returned. */
  lastKey: string | undefined;
  /**
   * True when the scan saw every key of its range (ran off the end). Otherwise
   * only keys up to `lastKey` could change what it returned.
   */
  exhausted: boolean;
}

export class ReadRecord {
  readonly keys = new Set<string>();
  readonly scans: ScanRecord[] = [];

  addScan(indexName: string | undefined, prefix: string, fromKey: string): ScanRecord {
    const rec: ScanRecord = { indexName, prefix, fromKey, lastKey: undefined, exhausted: false };
    this.scans.push(rec);
    return rec;
  }
}

/** Inclusive upper end of what a scan depends on, or undefined for "the rest of its prefix". */
export function scanUpperKey(rec: ScanRecord): string | undefined | null {
  if (rec.exhausted) return undefined;
  // Stopped before reading anything: it depends on nothing.
  if (rec.lastKey === undefined) return null;
  return rec.lastKey;
}
