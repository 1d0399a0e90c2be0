import { createHash } from 'node:crypto';
import { PROTOCOL_SCHEMAS } from '../protocol/index';
import { toJsonSchema } from './json-schema';

const DOC_KEYWORDS = new Set(['description', 'title', '$comment']);

/**
 * SHA-256 over every generated JSON schema with its documentation keywords
 * removed: it changes when the wire format changes, not when a comment does.
 */
export function protocolFingerprint(): string {
  const hash = createHash('sha256');
  for (const entry of PROTOCOL_SCHEMAS) {
    hash.update(entry.name);
    hash.update(JSON.stringify(withoutDocs(toJsonSchema(entry))));
  }
  return hash.digest('hex');
}

function withoutDocs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDocs);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(DOC_KEYWORDS.has(key) && typeof value === 'string'))
      .map(([key, value]) => [key, withoutDocs(value)]),
  );
}
