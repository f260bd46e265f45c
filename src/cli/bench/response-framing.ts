// Where an HTTP/1.1 answer ends (RFC 9112 §6.3), read from the bytes of its head in one pass: the
// load generator meets the gateway (Content-Length), nginx and any server behind --url (chunked, or a
// body that ends when the connection does).

/** The answer's end is not known yet: more bytes are needed. */
export const INCOMPLETE = -1
/** The body runs until the server closes the connection (no length, not chunked). */
export const UNTIL_CLOSE = -2
/** The chunked framing cannot be read: nothing after it on this connection can be trusted. */
export const MALFORMED = -3

export interface Framing {
  status: number
  /** The index just past the answer, or INCOMPLETE, UNTIL_CLOSE, MALFORMED. */
  end: number
  chunked: boolean
  /** Connection: close — the server ends the connection after this answer. */
  closing: boolean
}

/** `head` is the index of the \r\n\r\n that ends the head. */
export function frame(buf: Buffer, head: number): Framing {
  // "HTTP/1.1 200": the status is bytes 9 to 11.
  const status = (buf[9]! - 48) * 100 + (buf[10]! - 48) * 10 + (buf[11]! - 48)
  let length = -1
  let chunked = false
  let closing = false
  for (let k = buf.indexOf(13); k >= 0 && k < head;) {
    const start = k + 2
    const lineEnd = buf.indexOf(13, start)
    const colon = buf.indexOf(58, start)
    if (colon > start && colon < lineEnd) {
      const name = colon - start
      if (name === 14 && caselessAt(buf, start, 'content-length')) length = decimal(buf, colon + 1, lineEnd)
      else if (name === 17 && caselessAt(buf, start, 'transfer-encoding'))
        chunked = /(^|,)\s*chunked\s*$/i.test(buf.toString('latin1', colon + 1, lineEnd))
      else if (name === 10 && caselessAt(buf, start, 'connection'))
        closing = /(^|,)\s*close\s*(,|$)/i.test(buf.toString('latin1', colon + 1, lineEnd))
    }
    k = lineEnd
  }
  const bodyStart = head + 4
  let end: number
  if ((status >= 100 && status < 200) || status === 204 || status === 304) end = bodyStart
  else if (chunked) end = chunkedEnd(buf, bodyStart)
  else if (length >= 0) end = bodyStart + length
  else end = UNTIL_CLOSE
  return { status, end, chunked, closing }
}

/** The data of a chunked body from `start` to `end` (where frame() said it ends), without framing. */
export function dechunk(buf: Buffer, start: number, end: number): Buffer {
  const parts: Buffer[] = []
  for (let k = start; k < end;) {
    const lineEnd = buf.indexOf(13, k)
    const size = chunkSize(buf, k, lineEnd)
    if (size <= 0) break
    parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size))
    k = lineEnd + 2 + size + 2
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
}

function chunkedEnd(buf: Buffer, start: number): number {
  for (let k = start; ;) {
    const lineEnd = buf.indexOf(13, k)
    if (lineEnd < 0 || lineEnd + 1 >= buf.length) return INCOMPLETE
    const size = chunkSize(buf, k, lineEnd)
    if (size < 0) return MALFORMED
    if (size === 0) {
      // The last chunk, then trailer fields (usually none) and an empty line.
      if (buf[lineEnd + 2] === 13) return lineEnd + 4 <= buf.length ? lineEnd + 4 : INCOMPLETE
      const trailersEnd = buf.indexOf('\r\n\r\n', lineEnd)
      return trailersEnd < 0 ? INCOMPLETE : trailersEnd + 4
    }
    k = lineEnd + 2 + size + 2
    if (k > buf.length) return INCOMPLETE
  }
}

/** The hex size at the start of a chunk line (extensions after ';' ignored); -1 when it is not hex. */
function chunkSize(buf: Buffer, start: number, lineEnd: number): number {
  let size = 0
  let digits = 0
  for (let k = start; k < lineEnd && buf[k] !== 59; k++) {
    const c = buf[k]! | 0x20
    const v = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1
    if (v < 0) {
      if (buf[k] === 32 || buf[k] === 9) continue
      return -1
    }
    size = size * 16 + v
    digits++
  }
  return digits === 0 ? -1 : size
}

function caselessAt(buf: Buffer, at: number, lower: string): boolean {
  for (let j = 0; j < lower.length; j++) if ((buf[at + j]! | 0x20) !== lower.charCodeAt(j)) return false
  return true
}

function decimal(buf: Buffer, from: number, to: number): number {
  let n = 0
  let digits = 0
  for (let k = from; k < to; k++) {
    const c = buf[k]!
    if (c >= 48 && c <= 57) {
      n = n * 10 + c - 48
      digits++
    } else if (c !== 32 && c !== 9) return -1
  }
  return digits === 0 ? -1 : n
}
