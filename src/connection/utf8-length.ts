/** How many bytes `text` takes in UTF-8, without encoding it. Lone surrogates count as U+FFFD (3 bytes), as TextEncoder writes them. */
export function utf8ByteLength(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) {
      bytes += 1;
    } else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      // A pair: 2 units, 4 bytes.
      bytes += 2;
      i++;
    } else {
      bytes += 2;
    }
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
