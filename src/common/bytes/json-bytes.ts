/**
 * Writing a JSON line straight into a buffer, without making strings: for the access log, where a
 * line per request built as a string cost more in the gateway than its bytes did (see line-writer).
 * Each function writes at `pos` and returns the offset after what it wrote; the caller has made room.
 */

/** Bytes that fit in `buf` at `pos`, copied (constant parts kept as bytes). */
export function putBytes(buf: Uint8Array, pos: number, bytes: Uint8Array): number {
  const n = bytes.length
  // A short copy by hand: TypedArray#set has a fixed cost that a few bytes do not repay.
  if (n < 48) for (let k = 0; k < n; k++) buf[pos + k] = bytes[k]!
  else buf.set(bytes, pos)
  return pos + n
}

/** A string as a JSON string, quotes included: at most `jsonBound(s)` bytes. */
export function putJsonString(buf: Buffer, pos: number, s: string): number {
  buf[pos++] = 0x22
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k)
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
      // Rare (escapes, non-ASCII): the rest through JSON.stringify, its quotes dropped.
      const rest = JSON.stringify(s.slice(k))
      return pos + buf.write(rest.slice(1), pos)
    }
    buf[pos++] = c
  }
  buf[pos++] = 0x22
  return pos
}

/** What `putJsonString` may write at most: an escape is 6 bytes, a UTF-16 unit at most 3. */
export function jsonBound(s: string): number {
  return s.length * 6 + 2
}

/** A non-negative integer below 2^53, in decimal. */
export function putUint(buf: Uint8Array, pos: number, n: number): number {
  if (n < 10) {
    buf[pos] = 0x30 + n
    return pos + 1
  }
  let digits = 1
  for (let m = n; m >= 10; m = Math.floor(m / 10)) digits++
  for (let k = pos + digits - 1; k >= pos; k--) {
    buf[k] = 0x30 + (n % 10)
    n = Math.floor(n / 10)
  }
  return pos + digits
}

/** Microseconds as milliseconds with three decimals ("1.005"). */
export function putMillis(buf: Uint8Array, pos: number, us: number): number {
  pos = putUint(buf, pos, Math.floor(us / 1000))
  const frac = us % 1000
  buf[pos] = 0x2e
  buf[pos + 1] = 0x30 + Math.floor(frac / 100)
  buf[pos + 2] = 0x30 + (Math.floor(frac / 10) % 10)
  buf[pos + 3] = 0x30 + (frac % 10)
  return pos + 4
}
