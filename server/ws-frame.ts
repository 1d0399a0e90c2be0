/** Largest payload whose length fits the 7-bit field; up to 0xffff takes 16 bits, beyond that 64. */
const SHORT_LENGTH_MAX = 125;
const MEDIUM_LENGTH_MAX = 0xffff;
/** FIN set, opcode 1 (text). */
const FINAL_TEXT_FRAME = 0x81;
const MASKED = 0x80;

/** Bytes of the header (RFC 6455 §5.2) of a frame of `length` payload bytes, without a mask key. */
export function frameHeaderBytes(length: number): number {
  return length <= SHORT_LENGTH_MAX ? 2 : length <= MEDIUM_LENGTH_MAX ? 4 : 10;
}

/**
 * Writes the header of a final text frame of `length` payload bytes at the
 * start of `target` (frameHeaderBytes long), with the shortest length field;
 * `masked` sets the mask bit, as a client must (the key follows, the caller's).
 */
export function writeTextFrameHeader(target: Buffer, length: number, masked: boolean): void {
  target[0] = FINAL_TEXT_FRAME;
  const mask = masked ? MASKED : 0;
  if (length <= SHORT_LENGTH_MAX) target[1] = mask | length;
  else if (length <= MEDIUM_LENGTH_MAX) {
    target[1] = mask | 126;
    target.writeUInt16BE(length, 2);
  } else {
    target[1] = mask | 127;
    target.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    target.writeUInt32BE(length % 2 ** 32, 6);
  }
}

/**
 * A text message framed once, unmasked as a server sends it: `bytes` go to a
 * socket as they are, to as many sockets as get the message, instead of ws
 * framing it again for every send; `payload` is the message.
 */
export class TextFrame {
  readonly bytes: Buffer;
  private readonly headerBytes: number;

  constructor(text: string) {
    const length = Buffer.byteLength(text);
    this.headerBytes = frameHeaderBytes(length);
    const bytes = Buffer.allocUnsafe(this.headerBytes + length);
    writeTextFrameHeader(bytes, length, false);
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
