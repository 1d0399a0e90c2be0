const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
const WSID_LENGTH = 21;
const UUID_BYTES = 16;
const SUFFIX_LENGTH = 10;

/** Random identifiers from an injected byte source. */
export class Ids {
  constructor(private readonly randomBytes: (count: number) => Uint8Array) {}

  /** A version-4 UUID string. */
  uuid(): string {
    const b = this.randomBytes(UUID_BYTES);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const hex = Array.from(b, (byte) => byte.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /** 21 URL-safe characters, as the connect request's wsid. */
  wsid(): string {
    return this.urlSafe(WSID_LENGTH);
  }

  /** A short random suffix for room ids and request ids. */
  suffix(): string {
    return this.urlSafe(SUFFIX_LENGTH);
  }

  private urlSafe(length: number): string {
    return Array.from(this.randomBytes(length), (byte) => URL_SAFE[byte % URL_SAFE.length]).join('');
  }
}
