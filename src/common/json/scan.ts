import { SyntaxErrorAt } from '../errors/syntax'
import { DEFAULT_MAX_DEPTH } from '../contract/limits'

/**
 * A validating JSON scanner over UTF-8 bytes (RFC 8259). It builds nothing: it returns where a
 * value ends, so callers can cut exact byte slices (a 20-digit number or an escaped quote stays
 * as the client wrote it). Iterative, so hostile nesting costs a counter, not the stack.
 */

export class JsonSyntaxError extends SyntaxErrorAt {}

const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const MINUS = 0x2d

export function skipWhitespace(b: Uint8Array, i: number): number {
  const n = b.length
  while (i < n) {
    const c = b[i]!
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++
    else break
  }
  return i
}

/**
 * Why the serializers' readers refuse a leading U+FEFF: a microservice reads each argument as a
 * String, and Jackson and Jettison refuse one that starts with it (the gateway takes a BOM off the
 * HTTP body, as Jackson reading bytes does).
 */
export const BOM_REFUSED = 'a byte order mark (U+FEFF) before the JSON value'

/** Skips a UTF-8 byte order mark, which Jackson accepts too. */
export function skipBom(b: Uint8Array): number {
  return b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0
}

function unexpectedByte(b: Uint8Array, i: number): string {
  if (i >= b.length) return 'unexpected end of JSON'
  const c = b[i]!
  return c >= 0x20 && c < 0x7f
    ? `unexpected character '${String.fromCharCode(c)}'`
    : `unexpected byte 0x${c.toString(16).padStart(2, '0')}`
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46)
}

/** i points at the opening quote; returns the index after the closing quote. */
export function scanString(b: Uint8Array, i: number): number {
  const n = b.length
  i++
  while (i < n) {
    const c = b[i]!
    // Most bytes are letters, digits or UTF-8 continuation bytes: one comparison for them.
    if (c > BACKSLASH || (c > QUOTE && c < BACKSLASH)) {
      i++
      continue
    }
    if (c === QUOTE) return i + 1
    if (c === BACKSLASH) {
      const e = b[i + 1]
      if (e === 0x75) {
        // \uXXXX
        if (i + 5 >= n || !isHex(b[i + 2]!) || !isHex(b[i + 3]!) || !isHex(b[i + 4]!) || !isHex(b[i + 5]!)) {
          throw new JsonSyntaxError('invalid \\u escape', i)
        }
        i += 6
        continue
      }
      if (
        e === QUOTE ||
        e === BACKSLASH ||
        e === 0x2f ||
        e === 0x62 ||
        e === 0x66 ||
        e === 0x6e ||
        e === 0x72 ||
        e === 0x74
      ) {
        i += 2
        continue
      }
      throw new JsonSyntaxError(e === undefined ? 'unterminated string' : 'invalid escape', i)
    }
    if (c < 0x20) throw new JsonSyntaxError('control character in string', i)
    i++
  }
  throw new JsonSyntaxError('unterminated string', i)
}

function digits(b: Uint8Array, i: number): number {
  const start = i
  while (i < b.length && b[i]! >= 0x30 && b[i]! <= 0x39) i++
  if (i === start) throw new JsonSyntaxError('digit expected', i)
  return i
}

/** i points at '-' or a digit; returns the index after the number. */
export function scanNumber(b: Uint8Array, i: number): number {
  if (b[i] === MINUS) i++
  if (b[i] === 0x30) i++
  else {
    const start = i
    let c = b[i]!
    while (c >= 0x30 && c <= 0x39) c = b[++i]!
    if (i === start) throw new JsonSyntaxError('digit expected', i)
    // An integer followed by a delimiter is by far the most common number.
    if (c !== 0x2e && c !== 0x65 && c !== 0x45) return i
  }
  if (b[i] === 0x2e) i = digits(b, i + 1)
  const e = b[i]
  if (e === 0x65 || e === 0x45) {
    i++
    if (b[i] === 0x2b || b[i] === MINUS) i++
    i = digits(b, i)
  }
  return i
}

function scanLiteral(b: Uint8Array, i: number, word: string): number {
  for (let k = 0; k < word.length; k++) {
    if (b[i + k] !== word.charCodeAt(k)) throw new JsonSyntaxError(unexpectedByte(b, i + k), i + k)
  }
  return i + word.length
}

/** i points at the opening quote of a member name; returns the index where the member's value starts. */
function scanKey(b: Uint8Array, i: number): number {
  if (b[i] !== QUOTE)
    throw new JsonSyntaxError(b[i] === CLOSE_OBJECT ? "trailing ',' in object" : 'member name expected', i)
  i = scanString(b, i)
  if (b[i] !== COLON) {
    i = skipWhitespace(b, i)
    if (b[i] !== COLON) throw new JsonSyntaxError("':' expected", i)
  }
  return i + 1
}

/**
 * Scans one JSON value starting at i (whitespace allowed before it) and returns the index right
 * after it. Throws JsonSyntaxError with the byte offset of the first error.
 */
export function scanValue(b: Uint8Array, i: number, maxDepth = DEFAULT_MAX_DEPTH): number {
  const n = b.length
  // 1 = inside an object, 2 = inside an array; grows on demand up to maxDepth.
  let stack = new Uint8Array(Math.min(maxDepth, 64))
  let depth = 0
  for (;;) {
    // Whitespace is rare in machine-written JSON: test one byte before calling the skipper.
    if (b[i]! <= 0x20) i = skipWhitespace(b, i)
    if (i >= n) throw new JsonSyntaxError('unexpected end of JSON', i)
    const c = b[i]!
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth >= maxDepth) throw new JsonSyntaxError(`nesting deeper than ${maxDepth} levels`, i)
      if (depth === stack.length) {
        const bigger = new Uint8Array(Math.min(maxDepth, stack.length * 4))
        bigger.set(stack)
        stack = bigger
      }
      i++
      if (b[i]! <= 0x20) i = skipWhitespace(b, i)
      if (c === OPEN_OBJECT) {
        if (b[i] === CLOSE_OBJECT) i++
        else {
          stack[depth++] = 1
          i = scanKey(b, i)
          continue
        }
      } else {
        if (b[i] === CLOSE_ARRAY) i++
        else {
          stack[depth++] = 2
          continue
        }
      }
    } else if (c === QUOTE) i = scanString(b, i)
    else if (c === MINUS || (c >= 0x30 && c <= 0x39)) i = scanNumber(b, i)
    else if (c === 0x74) i = scanLiteral(b, i, 'true')
    else if (c === 0x66) i = scanLiteral(b, i, 'false')
    else if (c === 0x6e) i = scanLiteral(b, i, 'null')
    else throw new JsonSyntaxError(c === CLOSE_ARRAY ? "trailing ',' in array" : unexpectedByte(b, i), i)

    // After a value: close containers, or move to the next member or element.
    for (;;) {
      if (depth === 0) return i
      if (b[i]! <= 0x20) i = skipWhitespace(b, i)
      const d = b[i]
      const inObject = stack[depth - 1] === 1
      if (d === COMMA) {
        if (inObject) {
          i++
          if (b[i]! <= 0x20) i = skipWhitespace(b, i)
          i = scanKey(b, i)
        } else i++
        break
      }
      if (d === (inObject ? CLOSE_OBJECT : CLOSE_ARRAY)) {
        i++
        depth--
        continue
      }
      throw new JsonSyntaxError(
        i >= n ? 'unexpected end of JSON' : `${unexpectedByte(b, i)}, expected ',' or '${inObject ? '}' : ']'}'`,
        i
      )
    }
  }
}

/**
 * The scan of most values, without the exact scanner's calls and error words: one loop, the cursor
 * and current byte in locals, the open containers' kinds as bits of one number. It returns where a
 * value ends exactly as scanValue does, or -1 on anything it does not take (an escape, a control
 * character, nesting past 30, any error), and then scanValue scans the value again and words the
 * error. Whitespace is looked for only at a byte up to 32 (most bytes are not). Splitting large bodies
 * is most of the gateway's work under large calls, hence this second scanner (docs/performance.md).
 * A member name, after '{' or ',', is scanned by afterMemberName: one copy of the rule, at a cost
 * within the bench's noise.
 */
export function quickScan(b: Uint8Array, i: number, maxDepth: number): number {
  // Past the end, b[i]! is undefined (typed as a number here): every comparison below refuses it.
  const n = b.length
  let c = 0
  const cap = maxDepth < 30 ? maxDepth : 30
  let kinds = 0
  let depth = 0
  for (;;) {
    c = b[i]!
    if (c <= 32) while (c === 32 || c === 10 || c === 13 || c === 9) c = b[++i]!
    if (c === 34) {
      for (;;) {
        c = b[++i]!
        if (c === 34) break
        if (c === 92 || c < 32 || i >= n) return -1
      }
      i++
    } else if ((c >= 48 && c <= 57) || c === 45) {
      if (c === 45) c = b[++i]!
      if (c === 48) c = b[++i]!
      else if (c >= 49 && c <= 57) {
        do c = b[++i]!
        while (c >= 48 && c <= 57)
      } else return -1
      if (c === 46) {
        c = b[++i]!
        if (!(c >= 48 && c <= 57)) return -1
        do c = b[++i]!
        while (c >= 48 && c <= 57)
      }
      if (c === 101 || c === 69) {
        c = b[++i]!
        if (c === 43 || c === 45) c = b[++i]!
        if (!(c >= 48 && c <= 57)) return -1
        do c = b[++i]!
        while (c >= 48 && c <= 57)
      }
    } else if (c === 123) {
      if (depth >= cap) return -1
      c = b[++i]!
      if (c <= 32) while (c === 32 || c === 10 || c === 13 || c === 9) c = b[++i]!
      if (c === 125) i++
      else {
        kinds = (kinds << 1) | 1
        depth++
        if (c !== 34) return -1
        i = afterMemberName(b, i, n)
        if (i < 0) return -1
        continue
      }
    } else if (c === 91) {
      if (depth >= cap) return -1
      c = b[++i]!
      if (c <= 32) while (c === 32 || c === 10 || c === 13 || c === 9) c = b[++i]!
      if (c === 93) i++
      else {
        kinds = kinds << 1
        depth++
        continue
      }
    } else if (c === 116) {
      if (b[i + 1] !== 114 || b[i + 2] !== 117 || b[i + 3] !== 101) return -1
      i += 4
    } else if (c === 102) {
      if (b[i + 1] !== 97 || b[i + 2] !== 108 || b[i + 3] !== 115 || b[i + 4] !== 101) return -1
      i += 5
    } else if (c === 110) {
      if (b[i + 1] !== 117 || b[i + 2] !== 108 || b[i + 3] !== 108) return -1
      i += 4
    } else return -1
    for (;;) {
      if (depth === 0) return i
      c = b[i]!
      if (c <= 32) while (c === 32 || c === 10 || c === 13 || c === 9) c = b[++i]!
      if (c === 44) {
        c = b[++i]!
        if ((kinds & 1) === 0) break
        if (c <= 32) while (c === 32 || c === 10 || c === 13 || c === 9) c = b[++i]!
        if (c !== 34) return -1
        i = afterMemberName(b, i, n)
        if (i < 0) return -1
        break
      }
      if (c === ((kinds & 1) === 1 ? 125 : 93)) {
        i++
        depth--
        kinds >>>= 1
        continue
      }
      return -1
    }
  }
}

/**
 * For quickScan: from the opening quote of a member name at i, the index after its ':', or -1 on
 * an escape, a control character, the end, or anything but whitespace before the ':'.
 */
function afterMemberName(b: Uint8Array, i: number, n: number): number {
  let c = 0
  for (;;) {
    c = b[++i]!
    if (c === 34) break
    if (c === 92 || c < 32 || i >= n) return -1
  }
  c = b[++i]!
  if (c <= 32) while (c === 32 || c === 10 || c === 13 || c === 9) c = b[++i]!
  return c === 58 ? i + 1 : -1
}

/** The end of the value at i: the quick scan, or the exact one when the quick one stands aside. */
function valueEnd(b: Uint8Array, i: number, maxDepth: number): number {
  const end = quickScan(b, i, maxDepth)
  return end >= 0 ? end : scanValue(b, i, maxDepth)
}

/** Validates that b holds exactly one JSON value, with only whitespace around it. */
export function validateJsonDocument(b: Uint8Array, maxDepth = DEFAULT_MAX_DEPTH): void {
  const end = skipWhitespace(b, valueEnd(b, skipBom(b), maxDepth))
  if (end !== b.length) throw new JsonSyntaxError('trailing characters after the JSON value', end)
}

/**
 * Splits a JSON array document into its elements: [start0, end0, start1, end1, ...], each pair the
 * exact bytes of one element. Throws JsonSyntaxError; `notArray` is set when the root is not an array.
 */
export function splitJsonArray(b: Uint8Array, maxDepth = DEFAULT_MAX_DEPTH): number[] {
  let i = skipWhitespace(b, skipBom(b))
  if (b[i] !== OPEN_ARRAY) {
    const err = new JsonSyntaxError(
      i >= b.length
        ? 'empty body, a JSON array of arguments expected'
        : 'an RMC body must be a JSON array of arguments',
      i
    )
    throw err
  }
  const out: number[] = []
  i = skipWhitespace(b, i + 1)
  if (b[i] === CLOSE_ARRAY) {
    i++
  } else {
    for (;;) {
      const start = skipWhitespace(b, i)
      const end = valueEnd(b, start, maxDepth - 1)
      out.push(start, end)
      i = skipWhitespace(b, end)
      const c = b[i]
      if (c === COMMA) {
        i++
        continue
      }
      if (c === CLOSE_ARRAY) {
        i++
        break
      }
      throw new JsonSyntaxError(
        i >= b.length ? 'unexpected end of JSON' : `${unexpectedByte(b, i)}, expected ',' or ']'`,
        i
      )
    }
  }
  i = skipWhitespace(b, i)
  if (i !== b.length) throw new JsonSyntaxError('trailing characters after the JSON array', i)
  return out
}
