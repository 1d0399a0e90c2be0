import type { ReadonlyJSONValue } from '../../protocol/json';
import type { BTreeReader } from '../btree/types';
import { TransactionClosedError } from './errors';
import { checkKeyText, deepFreezeJSON } from './json-value';
import { decodeIndexKey } from './index-key';
import type { MapReaders } from './map-access';
import type { ReadRecord } from './read-record';
import { normalizeScan, type KeyCompare } from './scan-options';
import { entriesAtHand, ScanIterator, ScanResultImpl } from './scan-result';
import type {
  IndexKey,
  ReadTransaction,
  ScanIndexOptions,
  ScanNoIndexOptions,
  ScanOptions,
  ScanResult,
  TransactionReason,
} from './transaction-types';

const identity = (k: string) => k;

export class ReadTransactionImpl<R extends BTreeReader = BTreeReader> implements ReadTransaction {
  private closed = false;

  constructor(
    readonly clientID: string,
    readonly reason: TransactionReason,
    protected readonly maps: MapReaders<R>,
    protected readonly compare: KeyCompare,
    /** Set when the reads must be recorded (subscriptions). */
    readonly record?: ReadRecord,
    /** The maps are trees as stored, with no writes buffered: a scan of nodes at hand may run at once. */
    private readonly readOnly = false,
  ) {}

  /** A method, not a closure per transaction: scans get the transaction itself to check. */
  checkOpen(): void {
    if (this.closed) throw new TransactionClosedError();
  }

  close(): void {
    this.closed = true;
  }

  async get(key: string): Promise<ReadonlyJSONValue | undefined> {
    this.checkOpen();
    checkKeyText(key);
    this.record?.keys.add(key);
    const v = await this.maps.primary.get(key);
    return v === undefined ? v : deepFreezeJSON(v);
  }

  async has(key: string): Promise<boolean> {
    this.checkOpen();
    checkKeyText(key);
    this.record?.keys.add(key);
    return this.maps.primary.has(key);
  }

  async isEmpty(): Promise<boolean> {
    this.checkOpen();
    const rec = this.record?.addScan(undefined, '', '');
    const it = this.maps.primary.scan();
    const r = await it.next();
    await it.return?.();
    if (rec) {
      if (r.done) rec.exhausted = true;
      else rec.lastKey = r.value[0];
    }
    return r.done === true;
  }

  scan(options?: ScanNoIndexOptions): ScanResult<string>;
  scan(options: ScanIndexOptions): ScanResult<IndexKey>;
  scan(options?: ScanOptions): ScanResult<string> | ScanResult<IndexKey> {
    this.checkOpen();
    checkScanKeys(options);
    const scan = normalizeScan(options, this.compare);
    const tree = scan.indexName === undefined ? this.maps.primary : this.maps.index(scan.indexName);
    // (Inline, not a named closure: tsx names every named closure it creates, which a scan per subscription run pays.)
    return new ScanResultImpl<string | IndexKey>((atOnce) => {
      const rec = this.record?.addScan(scan.indexName, scan.prefix, scan.fromKey);
      return (atOnce && this.readOnly && entriesAtHand(tree, scan, rec, this)) || new ScanIterator(scan, tree, this, rec);
    }, scan.indexName === undefined ? identity : decodeIndexKey) as ScanResult<string> & ScanResult<IndexKey>;
  }
}

function checkScanKeys(options: ScanOptions | undefined): void {
  if (options?.prefix !== undefined) checkKeyText(options.prefix, 'Scan prefix');
  const start = options?.start?.key;
  if (typeof start === 'string') checkKeyText(start, 'Scan start key');
  else if (start !== undefined) {
    checkKeyText(start[0], 'Scan start key');
    if (start[1] !== undefined) checkKeyText(start[1], 'Scan start key');
  }
}
