import type { RandomSource } from './environment';

const URL_SAFE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';

/** The length of a wsid (and of our request ids). */
export const RANDOM_ID_LENGTH = 21;

/** A random id of URL-safe characters drawn from `random`. */
export function randomID(random: RandomSource, length: number = RANDOM_ID_LENGTH): string {
  let id = '';
  for (let i = 0; i < length; i++) {
    id += URL_SAFE_ALPHABET[Math.floor(random() * URL_SAFE_ALPHABET.length) % URL_SAFE_ALPHABET.length];
  }
  return id;
}

/** A version 4 UUID drawn from `random` (client and client group ids). */
export function randomUUID(random: RandomSource): string {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
  const variant = (8 + Math.floor(random() * 4)).toString(16);
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${variant}${hex(3)}-${hex(12)}`;
}
