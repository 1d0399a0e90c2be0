import type { BTreeReader, BTreeWriter } from '../btree/types';
import type { DagRead, DagWrite, Hash } from '../dag/types';
import type { CompiledIndex, IndexSkipHandler } from './index-definition';
import type { StoreLogger } from './logger';
import type { KeyCompare } from './scan-options';

/** What the commit-level code needs from its surroundings. */
export interface DbContext {
  readonly compare: KeyCompare;
  readonly indexes: readonly CompiledIndex[];
  readonly logger: StoreLogger;
  readonly onIndexSkip: IndexSkipHandler;
  readonly readTree: (dag: DagRead, root: Hash) => BTreeReader;
  readonly writeTree: (dag: DagWrite, root: Hash | undefined) => BTreeWriter;
}
