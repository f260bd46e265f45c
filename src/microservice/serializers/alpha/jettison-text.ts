import { javaDouble } from '../java/text'
import { jsonString, type JsonStringStyle } from '../json-string'
import { plainDecimal } from '../java/integers'
import { ValueError } from '../errors'

const LONG_MIN = -(2n ** 63n)
const LONG_MAX = 2n ** 63n - 1n

/**
 * Jettison writes leaf text as a JSON primitive when it reads back identically; otherwise as a string.
 * `inArray`: the text is an element of a JSON array (a repeated element), where Jettison's JSONArray
 * escapes every `/`, not only the one of `</`.
 */
export function jettisonPrimitive(text: string, inArray = false): string {
  if (text === 'true' || text === 'false') return text
  // Most numbers: a plain decimal of up to 15 digits is a long that reads back identically.
  if (plainDecimal(text, 15) !== null) return text
  if (/^-?[0-9]+$/.test(text)) {
    const n = BigInt(text)
    if (n >= LONG_MIN && n <= LONG_MAX && n.toString() === text) return text
  } else if (/^-?[0-9]+\.[0-9]+(E[0-9]+)?$/.test(text)) {
    const x = Number(text)
    if (Number.isFinite(x) && javaDouble(x) === text) return text.endsWith('.0') ? text.slice(0, -2) : text
  }
  return jettisonString(text, inArray)
}

const JETTISON: JsonStringStyle = { escapeCloseTag: true, upperHex: false, escapeLineSeparators: true }

export function jettisonString(s: string, inArray = false): string {
  const quoted = jsonString(s, JETTISON)
  if (!inArray || !s.includes('/')) return quoted
  // Escape pairs are stepped over whole, so a '/' met alone is one of the text's own.
  return quoted.replace(/\\.|\//g, (m) => (m === '/' ? '\\/' : m))
}

/**
 * The text XStream gets for a JSON number token. Jettison 1.5.3's JSONTokener.nextValue makes it an
 * Integer, else a Long, else a Double (Integer.valueOf, Long.valueOf, new Double), and the mapped
 * reader hands over that object's toString(): an integer within long keeps its digits (-0 is "0",
 * from which XStream reads +0.0); any other number is Java's Double.toString of it, which a String
 * read from it shows (1.50 is "1.5", 1e2 "100.0", 2^64 "1.8446744073709552E19").
 */
export function jettisonNumberText(token: string, inArray = false): string {
  if (token === '-0') return '0'
  // A JSONObject member refuses a number past double's range (1e400): "JSON does not allow non-finite
  // numbers"; a JSONArray element takes it (Infinity).
  if (!inArray && pastDoubleRange(token))
    throw new ValueError(`${token.slice(0, 40)}: JSON does not allow non-finite numbers`)
  return integerWithinLong(token) ? token : javaDouble(Number(token))
}

/** Whether a JSON number token is an integer Long.valueOf takes (JSON has no leading zeros or '+'). */
function integerWithinLong(token: string): boolean {
  const start = token.charCodeAt(0) === 0x2d ? 1 : 0
  for (let k = start; k < token.length; k++) {
    const c = token.charCodeAt(k)
    if (c < 0x30 || c > 0x39) return false
  }
  // Up to 18 digits always fit; 19 may; more never do.
  if (token.length - start <= 18) return true
  if (token.length - start > 19) return false
  const n = BigInt(token)
  return n >= LONG_MIN && n <= LONG_MAX
}

/** Whether a JSON number token is past double's range (only one with an exponent or 309 digits can be). */
export function pastDoubleRange(token: string): boolean {
  return (token.length > 300 || /[eE]/.test(token)) && !Number.isFinite(Number(token))
}
