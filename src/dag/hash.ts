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
import { flatString } from '../kv/flat-string';
import type { Hash } from './types';

export type RandomSource = () => number;

/**
 * Makes the hashes of one store's new chunks: `next()` is a method of one
 * class, so a commit's call to it is the same call in every store of a page
 * (a closure per store was a new call target for each client: the optimized
 * commit path was thrown away at the first commit of the next one).
 */
export interface CreateHash {
  next(): Hash;
}

const PREFIX_CHARS = 10;
const BASE32 = 32;

class HashFactory implements CreateHash {
  readonly #prefix: string;
  #counter = 0;
  constructor(prefix: string) {
    this.#prefix = prefix;
  }
  next(): Hash {
    return flatString(`${this.#prefix}${(this.#counter++).toString(BASE32)}`);
  }
}

/**
 * `random` returns floats in [0, 1) like Math.random. Hashes are made flat
 * strings: a backlog of 100,000 commits holds some 200,000 of them.
 */
export function newHashFactory(random: RandomSource = Math.random): CreateHash {
  let prefix = '';
  for (let i = 0; i < PREFIX_CHARS; i++) prefix += Math.floor(random() * BASE32).toString(BASE32);
  return new HashFactory(prefix);
}
