import type { ReadonlyJSONValue } from '../../protocol/json';
import type { BTreeWriter } from '../btree/types';
import type { DagWrite, Hash } from '../dag/types';
import type { ChangeMap } from './change-set';
import { newCommitChunk, UNKEPT_TREE, type Commit, type CommitData, type IndexRecord, type LocalCommitData } from './commit';
import type { DbContext } from './db-context';
import { MapReaders, NO_ENTRIES } from './map-access';
import type { MutatorDefs, TransactionReason } from './transaction-types';
import { WriteTransactionImpl } from './write-transaction';

export interface MutationInput {
  readonly name: string;
  readonly args: ReadonlyJSONValue;
  readonly clientID: string;
  readonly mutationID: number;
  readonly timestamp: number;
  readonly originalHash: Hash | null;
}

/** A local commit's mutation, to run again on another basis. */
export function replayInputOf({ hash, data }: Commit<LocalCommitData>): MutationInput {
  return {
    name: data.mutatorName,
    args: data.mutatorArgs,
    clientID: data.clientID,
    mutationID: data.mutationID,
    timestamp: data.timestamp,
    originalHash: hash,
  };
}

/**
 * The commit data of a mutation run on `basisHash` that left these trees: the
 * one constructor of LocalCommitData (a merge's description of a stored commit
 * from its database's lists, tab-merge's viewChain, uses it too, through its kit).
 */
export function localCommitData(input: MutationInput, basisHash: Hash, valueHash: Hash, indexes: readonly IndexRecord[]): LocalCommitData {
  return {
    type: 'local',
    basisHash,
    mutationID: input.mutationID,
    mutatorName: input.name,
    mutatorArgs: input.args,
    timestamp: input.timestamp,
    clientID: input.clientID,
    originalHash: input.originalHash,
    valueHash,
    indexes,
  };
}

export interface MutationOutcome {
  readonly commit: Commit<LocalCommitData>;
  readonly changes: ChangeMap;
  readonly result: unknown;
}

/** Opens writers on a commit's trees, index trees on first use. */
export function openWriters(dag: DagWrite, data: CommitData, ctx: DbContext): MapReaders<BTreeWriter> {
  // No indexes (most stores): one empty map for every commit.
  const roots: ReadonlyMap<string, Hash> = data.indexes.length === 0 ? NO_ENTRIES : new Map(data.indexes.map((ix) => [ix.name, ix.valueHash]));
  return new MapReaders(ctx.writeTree(dag, data.valueHash), roots, (root) => ctx.writeTree(dag, root));
}

type Trees = { valueHash: Hash; indexes: readonly IndexRecord[] };

/** Writes the changed trees; returns the new value root and index records (at once when they flush at once). */
export function flushWriters(maps: MapReaders<BTreeWriter>, basis: CommitData, changed: boolean): Trees | Promise<Trees> {
  if (!changed) return basis;
  const valueHash = maps.primary.flush();
  return typeof valueHash === 'string' && basis.indexes.length === 0 ? { valueHash, indexes: basis.indexes } : flushIndexes(maps, basis, valueHash);
}

async function flushIndexes(maps: MapReaders<BTreeWriter>, basis: CommitData, primary: Hash | Promise<Hash>): Promise<Trees> {
  const valueHash = await primary;
  const opened = maps.openedIndexes();
  const indexes: IndexRecord[] = [];
  for (const ix of basis.indexes) {
    const w = opened.get(ix.name);
    indexes.push(w ? { ...ix, valueHash: await w.flush() } : ix);
  }
  // No indexes (most stores): the basis's own list, so 100,000 commits do not hold 100,000 empty arrays.
  return { valueHash, indexes: indexes.length === 0 ? basis.indexes : indexes };
}

/**
 * Replays mutations one after another on top of `basis` (with reason
 * 'rebase': a throwing or missing mutator is logged, its writes undone, and
 * its commit changes nothing). The trees are written once, for the last
 * commit; the commits below it name none (UNKEPT_TREE), as commits below a
 * head do once it moves on. Returns the commits, oldest first.
 */
/**
 * Runs a mutator in `tx` and closes it. A missing mutator, or on a rebase one
 * that throws, is logged and the mutation changes nothing (ok: false); on a
 * first run the error propagates.
 */
async function runMutator(
  tx: WriteTransactionImpl,
  mutator: MutatorDefs[string] | undefined,
  input: MutationInput,
  reason: TransactionReason,
  ctx: DbContext,
): Promise<{ readonly ok: boolean; readonly result?: unknown }> {
  try {
    if (mutator === undefined) {
      ctx.logger.error(`Cannot replay mutation ${input.mutationID} of ${input.clientID}: no mutator named ${input.name}`);
      return { ok: false };
    }
    return { ok: true, result: await mutator(tx, input.args) };
  } catch (e) {
    if (reason !== 'rebase') throw e;
    ctx.logger.error(`Mutator ${input.name} threw while replaying mutation ${input.mutationID}`, e);
    return { ok: false };
  } finally {
    tx.close();
  }
}

export async function replayMutations(
  dag: DagWrite,
  basis: Commit,
  inputs: readonly MutationInput[],
  mutatorFor: (name: string) => MutatorDefs[string] | undefined,
  ctx: DbContext,
): Promise<MutationOutcome[]> {
  const maps = openWriters(dag, basis.data, ctx);
  const ran: { input: MutationInput; changes: ChangeMap }[] = [];
  let changed = false;
  for (const input of inputs) {
    const tx = new WriteTransactionImpl(input.clientID, 'rebase', input.mutationID, maps, ctx.compare, ctx.indexes, ctx.onIndexSkip);
    const { ok } = await runMutator(tx, mutatorFor(input.name), input, 'rebase', ctx);
    if (!ok) await undo(maps, tx.changes, ctx);
    ran.push({ input, changes: ok ? tx.changes : new Map() });
    changed ||= ok && tx.changes.size > 0;
  }
  const trees = await flushWriters(maps, basis.data, changed);
  const out: MutationOutcome[] = [];
  let head = basis;
  /** The index records of the commits below the last one: the same for each. */
  let unkeptIndexes: IndexRecord[] | undefined;
  for (const [i, { input, changes }] of ran.entries()) {
    const last = i === ran.length - 1;
    const data = localCommitData(
      input,
      head.hash,
      last ? trees.valueHash : UNKEPT_TREE,
      last || trees.indexes.length === 0 ? trees.indexes : (unkeptIndexes ??= trees.indexes.map((ix) => ({ ...ix, valueHash: UNKEPT_TREE }))),
    );
    const chunk = newCommitChunk(dag, data);
    await dag.putChunk(chunk);
    // The chunk serves as the commit (hash and data): no second object per replayed mutation.
    head = chunk as unknown as Commit<LocalCommitData>;
    out.push({ commit: head as Commit<LocalCommitData>, changes, result: undefined });
  }
  return out;
}

/** Puts back what a failed mutation wrote (and its index entries). */
async function undo(maps: MapReaders<BTreeWriter>, changes: ChangeMap, ctx: DbContext): Promise<void> {
  const tx = new WriteTransactionImpl('', 'rebase', 0, maps, ctx.compare, ctx.indexes, undefined, () => {});
  for (const [key, { oldValue }] of changes) await tx.write(key, oldValue);
  tx.close();
}

/**
 * Runs one mutator in a write transaction on top of `basis` and stores the
 * resulting local commit in `dag` (the caller moves the head and commits).
 * On the first run a throwing mutator's error propagates and nothing is kept.
 * On a rebase a throwing or missing mutator is logged and the mutation is
 * kept as a commit that changes nothing, so it is still pushed.
 */
export async function runMutation(
  dag: DagWrite,
  basis: Commit,
  input: MutationInput,
  mutator: MutatorDefs[string] | undefined,
  reason: TransactionReason,
  ctx: DbContext,
): Promise<MutationOutcome> {
  const maps = openWriters(dag, basis.data, ctx);
  const tx = new WriteTransactionImpl(
    input.clientID,
    reason,
    input.mutationID,
    maps,
    ctx.compare,
    ctx.indexes,
    ctx.onIndexSkip,
  );
  const { ok, result } = await runMutator(tx, mutator, input, reason, ctx);
  const changes: ChangeMap = ok ? tx.changes : new Map();
  const { valueHash, indexes } = await flushWriters(maps, basis.data, changes.size > 0);
  const data = localCommitData(input, basis.hash, valueHash, indexes);
  const chunk = newCommitChunk(dag, data);
  await dag.putChunk(chunk);
  return { commit: chunk as unknown as Commit<LocalCommitData>, changes, result };
}
