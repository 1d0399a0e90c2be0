/**
 * A persistent B+tree over the dag. Keys compare in UTF-8 byte order; nodes
 * are kept between BTREE_MIN_NODE_BYTES and BTREE_MAX_NODE_BYTES of estimated
 * encoded size. Values are stored as given and never mutated.
 */
import type { DagRead, DagWrite, Hash } from '../dag/types';
import { BTreeRead } from './reader';
import type { BTreeReader, BTreeWriter } from './types';
import { BTreeWrite } from './writer';

export function readBTree(dag: DagRead, root: Hash): BTreeReader & BTreeRead {
  return new BTreeRead(dag, root);
}

/** `root` undefined starts an empty tree. */
export function writeBTree(dag: DagWrite, root: Hash | undefined): BTreeWriter & BTreeWrite {
  return new BTreeWrite(dag, root);
}

export { BTreeRead, BTreeWrite };
