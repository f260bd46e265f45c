import { javaDouble } from './java-text'
import { jsonString, type JsonStringStyle } from './json-string'
import { plainDecimal } from './java-integers'
import { ValueError } from './errors'

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
 * The text Jettison gives a JSON number token: an integral one passes through Long (so -0 is "0" and
 * XStream reads +0.0 from it); any other keeps its characters.
 */
export function jettisonNumberText(token: string, inArray = false): string {
  if (token === '-0') return '0'
  // A JSONObject member refuses a number past double's range (1e400): "JSON does not allow non-finite
  // numbers"; a JSONArray element takes it (Infinity).
  if (!inArray && pastDoubleRange(token))
    throw new ValueError(`${token.slice(0, 40)}: JSON does not allow non-finite numbers`)
  return token
}

/** Whether a JSON number token is past double's range (only one with an exponent or 309 digits can be). */
export function pastDoubleRange(token: string): boolean {
  return (token.length > 300 || /[eE]/.test(token)) && !Number.isFinite(Number(token))
}
