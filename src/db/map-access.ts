import type { BTreeReader, BTreeWriter } from '../btree/types';
import type { Hash } from '../dag/types';
import { UnknownIndexError } from './errors';

/** One empty map for every place that has nothing to map (never written). */
export const NO_ENTRIES: ReadonlyMap<string, never> = new Map<string, never>();

/** Lazily opened trees of one commit: the primary map and its index maps. */
export class MapReaders<R extends BTreeReader = BTreeReader> {
  /** Made at the first index opened: most transactions (every one without indexes) open none. */
  private opened: Map<string, R> | undefined;

  constructor(
    readonly primary: R,
    private readonly indexRoots: ReadonlyMap<string, Hash>,
    private readonly open: (root: Hash) => R,
  ) {}

  index(name: string): R {
    let r = this.opened?.get(name);
    if (r === undefined) {
      const root = this.indexRoots.get(name);
      if (root === undefined) throw new UnknownIndexError(name);
      r = this.open(root);
      (this.opened ??= new Map()).set(name, r);
    }
    return r;
  }

  /** The index trees opened so far, by name. */
  openedIndexes(): ReadonlyMap<string, R> {
    return this.opened ?? NO_ENTRIES;
  }
}

export type MapWriters = MapReaders<BTreeWriter>;
