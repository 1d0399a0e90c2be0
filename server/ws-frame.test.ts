import { describe, expect, it } from 'vitest';
import { frameHeaderBytes, TextFrame, writeTextFrameHeader } from './ws-frame';

/** The payload length a frame's header gives, and where its payload starts. */
function readHeader(bytes: Buffer): { length: number; payloadAt: number } {
  expect(bytes[0]).toBe(0x81);
  const short = bytes[1]!;
  // A server's frames are not masked: the mask bit is clear.
  expect(short & 0x80).toBe(0);
  if (short < 126) return { length: short, payloadAt: 2 };
  if (short === 126) return { length: bytes.readUInt16BE(2), payloadAt: 4 };
  return { length: Number(bytes.readBigUInt64BE(2)), payloadAt: 10 };
}

describe('TextFrame', () => {
  it.each([
    ['empty', '', 2],
    ['125 bytes (the largest 7-bit length)', 'x'.repeat(125), 2],
    ['126 bytes of 2-byte characters (a 16-bit length)', 'é'.repeat(63), 4],
    ['65,535 bytes (the largest 16-bit length)', 'y'.repeat(65_535), 4],
    ['65,536 bytes (a 64-bit length)', 'z'.repeat(65_536), 10],
    ['characters of 1 to 4 bytes', 'a é € 😀'.repeat(10_000), 10],
  ])('frames %s as one final, unmasked text frame whose shortest length field counts bytes', (_what, text, headerBytes) => {
    const frame = new TextFrame(text);
    const { length, payloadAt } = readHeader(frame.bytes);
    expect(payloadAt).toBe(headerBytes);
    expect(length).toBe(Buffer.byteLength(text));
    expect(frame.bytes.length).toBe(payloadAt + length);
    expect(frame.bytes.subarray(payloadAt).toString('utf8')).toBe(text);
    expect(frame.payload.equals(Buffer.from(text))).toBe(true);
    expect(frame.toString()).toBe(text);
  });
});

describe('writeTextFrameHeader', () => {
  it.each([
    [5, [0x81, 0x85]],
    [200, [0x81, 0x80 | 126, 0x00, 0xc8]],
    [70_000, [0x81, 0x80 | 127, 0, 0, 0, 0, 0x00, 0x01, 0x11, 0x70]],
  ])('sets the mask bit of a client frame of %i bytes beside the shortest length field', (length, header) => {
    const target = Buffer.alloc(frameHeaderBytes(length));
    writeTextFrameHeader(target, length, true);
    expect([...target]).toEqual(header);
  });
});
