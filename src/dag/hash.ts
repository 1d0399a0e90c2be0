/**
 * Chunk hashes.
 *
 * Chunks are immutable and never compared by content, so a hash does not need
 * to be a digest: it only has to be unique. Each factory draws a random prefix
 * once (50 bits from the injected random source) and appends a counter, both
 * in base32. That costs nothing per chunk, where hashing would cost a full
 * encode of every node written; two stores (tabs, reloads) collide only if
 * their prefixes do (about 1 in 10^15 per pair).
 */
import type { Hash } from './types';

export type RandomSource = () => number;
export type CreateHash = () => Hash;

const PREFIX_CHARS = 10;
const BASE32 = 32;

const ANY_CHARACTER = /./;

/**
 * `random` returns floats in [0, 1) like Math.random.
 *
 * A hash is made flat: V8 keeps a concatenation of 13 characters or more as
 * a pair of pieces (a 32-byte object over the prefix and the counter's own
 * string, 56 bytes in all, 88 once a map lookup has flattened it beside them),
 * where a flat 14-character string takes 32. A regular-expression test
 * flattens its subject in place (the pieces are collected); a backlog of
 * 100,000 commits holds some 200,000 hashes (its commits and their trees').
 */
export function newHashFactory(random: RandomSource = Math.random): CreateHash {
  let prefix = '';
  for (let i = 0; i < PREFIX_CHARS; i++) prefix += Math.floor(random() * BASE32).toString(BASE32);
  let counter = 0;
  return () => {
    const hash = `${prefix}${(counter++).toString(BASE32)}`;
    ANY_CHARACTER.test(hash);
    return hash;
  };
}
