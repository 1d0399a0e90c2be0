import type { DagWrite } from '../dag/types';
import {
  hasTrees,
  newCommitChunk,
  readChain,
  type Commit,
  type CommitData,
  type IndexRecord,
  type LocalCommitData,
  type SnapshotCommitData,
} from './commit';
import type { DbContext } from './db-context';
import { indexKeysFor, sameIndexDefinition, type CompiledIndex } from './index-definition';
import { replayInputOf, replayMutations } from './mutation-runner';
import type { MutatorDefs } from './transaction-types';

/** Whether a commit's index maps were built with the definitions of `ctx` (none to add, drop or rebuild). */
export function indexesMatch(data: CommitData, ctx: DbContext): boolean {
  if (data.indexes.length !== ctx.indexes.length) return false;
  return ctx.indexes.every((ix) => {
    const rec = data.indexes.find((r) => r.name === ix.name);
    return rec !== undefined && sameIndexDefinition(rec.definition, ix.definition);
  });
}

/**
 * When the store is opened with other index definitions than its head was
 * built with, rewrites the head's chain (snapshot and pending local commits)
 * with index maps for the new definitions. Returns the head unchanged when
 * they already match. A local commit is rewritten from what it changed, or,
 * when its trees were let go of (below the head), replayed with its mutator.
 */
export async function ensureIndexes(
  dag: DagWrite,
  head: Commit,
  ctx: DbContext,
  mutatorFor: (name: string) => MutatorDefs[string] | undefined,
): Promise<Commit> {
  if (indexesMatch(head.data, ctx)) return head;
  const { snapshot, locals } = await readChain(dag, head);
  let basis: Commit = await rewriteSnapshot(dag, snapshot, ctx);
  if ((await Promise.all(locals.map((local) => hasTrees(dag, local)))).includes(false)) {
    // The same mutations again (not a rebase of them: each keeps its original hash).
    const inputs = locals.map((local) => ({ ...replayInputOf(local), originalHash: local.data.originalHash }));
    return (await replayMutations(dag, basis, inputs, mutatorFor, ctx)).at(-1)?.commit ?? basis;
  }
  for (const local of locals) basis = await rewriteLocal(dag, basis, local, ctx);
  return basis;
}

async function buildIndex(dag: DagWrite, ix: CompiledIndex, valueHash: string, ctx: DbContext): Promise<IndexRecord> {
  const w = ctx.writeTree(dag, undefined);
  for await (const [key, value] of ctx.readTree(dag, valueHash).scan(ix.definition.prefix)) {
    if (!key.startsWith(ix.definition.prefix)) break;
    for (const k of safeKeys(ix, key, value, ctx)) await w.put(k, value);
  }
  return { name: ix.name, definition: ix.definition, valueHash: await w.flush() };
}

function safeKeys(ix: CompiledIndex, key: string, value: Parameters<typeof indexKeysFor>[2], ctx: DbContext): string[] {
  try {
    return indexKeysFor(ix, key, value, ctx.onIndexSkip);
  } catch (e) {
    ctx.logger.warn(`Not indexing ${JSON.stringify(key)} in ${ix.name}`, e);
    return [];
  }
}

async function rewriteSnapshot(
  dag: DagWrite,
  snapshot: Commit<SnapshotCommitData>,
  ctx: DbContext,
): Promise<Commit> {
  const indexes: IndexRecord[] = [];
  for (const ix of ctx.indexes) indexes.push(await buildIndex(dag, ix, snapshot.data.valueHash, ctx));
  const data: SnapshotCommitData = { ...snapshot.data, indexes };
  const chunk = newCommitChunk(dag, data);
  await dag.putChunk(chunk);
  return { hash: chunk.hash, data };
}

async function rewriteLocal(dag: DagWrite, basis: Commit, local: Commit<LocalCommitData>, ctx: DbContext): Promise<Commit> {
  const oldTree = ctx.readTree(dag, basis.data.valueHash);
  const diff = await oldTree.diff(ctx.readTree(dag, local.data.valueHash));
  const indexes: IndexRecord[] = [];
  for (const ix of ctx.indexes) {
    const rec = basis.data.indexes.find((r) => r.name === ix.name)!;
    const w = ctx.writeTree(dag, rec.valueHash);
    for (const d of diff) {
      if (d.op !== 'add') for (const k of safeKeys(ix, d.key, d.oldValue, ctx)) await w.del(k);
      if (d.op !== 'del') for (const k of safeKeys(ix, d.key, d.newValue, ctx)) await w.put(k, d.newValue);
    }
    indexes.push({ ...rec, valueHash: await w.flush() });
  }
  const data: LocalCommitData = { ...local.data, basisHash: basis.hash, indexes };
  const chunk = newCommitChunk(dag, data);
  await dag.putChunk(chunk);
  return { hash: chunk.hash, data };
}
