/** Largest payload whose length fits the 7-bit field; up to 0xffff takes 16 bits, beyond that 64. */
const SHORT_LENGTH_MAX = 125;
const MEDIUM_LENGTH_MAX = 0xffff;
/** FIN set, opcode 1 (text). */
const FINAL_TEXT_FRAME = 0x81;

/**
 * A text message framed once (RFC 6455 §5.2, unmasked as a server sends it):
 * `bytes` go to a socket as they are, to as many sockets as get the message,
 * instead of ws framing it again for every send; `payload` is the message.
 */
export class TextFrame {
  readonly bytes: Buffer;
  private readonly headerBytes: number;

  constructor(text: string) {
    const length = Buffer.byteLength(text);
    this.headerBytes = length <= SHORT_LENGTH_MAX ? 2 : length <= MEDIUM_LENGTH_MAX ? 4 : 10;
    const bytes = Buffer.allocUnsafe(this.headerBytes + length);
    bytes[0] = FINAL_TEXT_FRAME;
    if (length <= SHORT_LENGTH_MAX) bytes[1] = length;
    else if (length <= MEDIUM_LENGTH_MAX) {
      bytes[1] = 126;
      bytes.writeUInt16BE(length, 2);
    } else {
      bytes[1] = 127;
      bytes.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
      bytes.writeUInt32BE(length % 2 ** 32, 6);
    }
    bytes.write(text, this.headerBytes, 'utf8');
    this.bytes = bytes;
  }

  get payload(): Buffer {
    return this.bytes.subarray(this.headerBytes);
  }

  toString(): string {
    return this.payload.toString('utf8');
  }
}
