import { LocalDate, type Descriptor, type ScalarType } from '../../descriptors/descriptors'
import { ValueError } from '../errors'
import { javaTrim, xstreamInt, xstreamLong } from './integers'
import { javaDoubleToString } from './double'

const INT_MIN = -2147483648
const INT_MAX = 2147483647
const LONG_MIN = -(2n ** 63n)
const LONG_MAX = 2n ** 63n - 1n

const bits = new Float64Array(1)
const words = new Uint32Array(bits.buffer)

/**
 * Where Java 17's Double.toString may differ from the shortest form (see double.ts): integral
 * values from 2^53 on, subnormals, and powers of two below 1 (asked of Java over millions of random
 * doubles: no other difference). Elsewhere the shortest form, which is much cheaper, is Java's.
 */
function notShortestInJava(abs: number): boolean {
  if (abs >= 9007199254740992 || abs < 2.2250738585072014e-308) return true
  if (abs >= 1) return false
  bits[0] = abs
  return words[0] === 0 && (words[1]! & 0xfffff) === 0
}

/** Java's Double.toString: 2.0, 1.5, 1.0E20, 1.0E-7, NaN, Infinity (Java 17's digits, see double.ts). */
export function javaDouble(x: number): string {
  if (Number.isNaN(x)) return 'NaN'
  if (x === Infinity) return 'Infinity'
  if (x === -Infinity) return '-Infinity'
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0'
  const abs = Math.abs(x)
  if (notShortestInJava(abs)) return javaDoubleToString(x)
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(x)
    return s.includes('.') ? s : s + '.0'
  }
  const [mantissa, exponent] = x.toExponential().split('e') as [string, string]
  return `${mantissa.includes('.') ? mantissa : mantissa + '.0'}E${exponent.startsWith('+') ? exponent.slice(1) : exponent}`
}

/** Text of a scalar value as XStream's converters write it: as toString, but a NUL char is "" (CharConverter). */
export function xstreamScalarText(type: ScalarType, value: unknown): string {
  if (value === '\u0000' && (type === 'char' || type === 'Character')) return ''
  return scalarText(type, value)
}

/** Text of a scalar value the way Java's toString writes it. */
export function scalarText(type: ScalarType, value: unknown): string {
  switch (type) {
    case 'int':
    case 'Integer':
      return String(checkInt(value))
    case 'long':
    case 'Long':
      return String(checkLong(value))
    case 'double':
    case 'Double':
      return javaDouble(checkNumber(value))
    case 'boolean':
    case 'Boolean':
      if (typeof value !== 'boolean') throw new ValueError(`expected a boolean, got ${kindOf(value)}`)
      return value ? 'true' : 'false'
    case 'char':
    case 'Character':
      if (typeof value !== 'string' || value.length !== 1)
        throw new ValueError(`expected one character, got ${kindOf(value)}`)
      return value
    case 'String':
      if (typeof value !== 'string') throw new ValueError(`expected a string, got ${kindOf(value)}`)
      return value
  }
}

export function kindOf(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v).slice(0, 40)}`
}

function checkInt(v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < INT_MIN || v > INT_MAX)
    throw new ValueError(`expected a 32-bit integer, got ${kindOf(v)}`)
  return v
}

function checkLong(v: unknown): bigint {
  const b = typeof v === 'bigint' ? v : typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : null
  if (b === null || b < LONG_MIN || b > LONG_MAX) throw new ValueError(`expected a 64-bit integer, got ${kindOf(v)}`)
  return b
}

function checkNumber(v: unknown): number {
  if (typeof v !== 'number') throw new ValueError(`expected a number, got ${kindOf(v)}`)
  return v
}

const DECIMAL = /^[-+]?[0-9]+$/
const FLOATING = /^[-+]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?[fFdD]?)$/

/** Reads an integer as Java's Integer.parseInt / Long.parseLong do (no spaces, optional sign). */
export function parseJavaInteger(text: string, type: 'int' | 'long', decode = false): number | bigint {
  // XStream reads ints and longs with its own converters (Long.decode and their ranges).
  if (decode) return type === 'int' ? xstreamInt(text) : xstreamLong(text)
  if (!DECIMAL.test(text)) throw new ValueError(`'${text}' is not an integer`)
  const value = BigInt(text)
  if (type === 'int') {
    if (value < BigInt(INT_MIN) || value > BigInt(INT_MAX))
      throw new ValueError(`${text} is out of range of a 32-bit integer`)
    return Number(value)
  }
  if (value < LONG_MIN || value > LONG_MAX) throw new ValueError(`${text} is out of range of a 64-bit integer`)
  return value
}

const HEX_FLOATING = /^([-+]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([-+]?[0-9]+)[fFdD]?$/

/**
 * Reads a number as Java's Double.parseDouble does: surrounding characters up to U+0020 trimmed
 * (String.trim), an optional f/F/d/D suffix, and hexadecimal floating point (0x1.8p1 is 3.0).
 */
export function parseJavaDouble(text: string): number {
  const trimmed = javaTrim(text)
  if (FLOATING.test(trimmed)) return Number(trimmed.replace(/[fFdD]$/, ''))
  const hex = HEX_FLOATING.exec(trimmed)
  if (hex === null || hex[2]! + (hex[3] ?? '') === '') throw new ValueError(`'${text}' is not a number`)
  const [, sign, whole, fraction = '', exponent] = hex as unknown as [
    string,
    string,
    string,
    string | undefined,
    string
  ]
  // BigInt to Number rounds to nearest even; the power of two is applied in steps that stay exact.
  let x = Number(BigInt(`0x0${whole}${fraction}`))
  let e = Number(exponent) - 4 * fraction.length
  while (e > 0 && x !== 0 && Number.isFinite(x)) {
    const k = Math.min(e, 1000)
    x *= 2 ** k
    e -= k
  }
  while (e < 0 && x !== 0) {
    const k = Math.max(e, -1000)
    x *= 2 ** k
    e -= k
  }
  return sign === '-' ? -x : x
}

/**
 * Jackson's CharacterDeserializer on a String: one UTF-16 unit as it is; otherwise trimmed, and empty
 * is null for Character (NUL for char); anything else is refused.
 */
export function jacksonChar(text: string, type: 'char' | 'Character'): string | null {
  if (text.length === 1) return text
  if (javaTrim(text) === '') return type === 'Character' ? null : '\u0000'
  throw new ValueError(
    `Cannot deserialize value of type \`${type}\` from String "${text.slice(0, 40)}": expected either Integer value code or 1-character String`
  )
}

/**
 * Parses scalar text into the value of `type` (the element text of XML, the leaf text of JSON):
 * with `xstream`, as XStream's converters read it, else as Jackson does.
 */
export function parseScalar(type: ScalarType, text: string, xstream = false): unknown {
  switch (type) {
    case 'int':
    case 'Integer':
      return parseJavaInteger(text, 'int', xstream)
    case 'long':
    case 'Long':
      return parseJavaInteger(text, 'long', xstream)
    case 'double':
    case 'Double':
      return parseJavaDouble(text)
    case 'boolean':
    case 'Boolean': {
      // XStream: Boolean.valueOf (true ignoring case, anything else false).
      if (xstream) return text.toLowerCase() === 'true'
      // Jackson: true, True or TRUE (false likewise) after String.trim; anything else is refused.
      const t = javaTrim(text)
      if (t === 'true' || t === 'True' || t === 'TRUE') return true
      if (t === 'false' || t === 'False' || t === 'FALSE') return false
      throw new ValueError(`'${text.slice(0, 40)}' is not a boolean (only "true" or "false")`)
    }
    case 'char':
    case 'Character':
      // XStream's CharConverter: "" is NUL, otherwise the first UTF-16 unit (charAt(0)), the rest ignored.
      if (xstream) return text === '' ? '\u0000' : text[0]!
      return jacksonChar(text, type)
    case 'String':
      return text
  }
}

/** Java's String.hashCode. */
export function javaStringHash(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0
  return h
}

/**
 * The iteration order of a java.util.HashMap holding these String keys, inserted in this order:
 * by bucket (spread hash & (capacity - 1)), insertion order within a bucket. The capacity is the
 * default 16, doubled while the size exceeds 0.75 of it (resizing keeps relative order in a bucket).
 */
export function hashMapOrder(keys: readonly string[]): string[] {
  let capacity = 16
  while (keys.length > capacity * 0.75) capacity *= 2
  const bucket = (k: string): number => {
    const h = javaStringHash(k)
    return (h ^ (h >>> 16)) & (capacity - 1)
  }
  return keys
    .map((k, i) => [k, bucket(k), i] as const)
    .sort((a, b) => a[1] - b[1] || a[2] - b[2])
    .map((e) => e[0])
}

/**
 * Entries of a map value in the order Java iterates it: a LinkedHashMap in insertion order, any other
 * map in HashMap order. Plain objects are accepted as maps.
 */
export function javaMapEntries(v: unknown, className: string): Array<[string, unknown]> {
  let entries: Array<[string, unknown]>
  if (v instanceof Map) entries = [...(v as Map<unknown, unknown>).entries()].map(([k, x]) => [String(k), x])
  else if (typeof v === 'object' && v !== null && !Array.isArray(v)) entries = Object.entries(v)
  else throw new ValueError(`expected a map, got ${kindOf(v)}`)
  if (className === 'java.util.LinkedHashMap') return entries
  const byKey = new Map(entries)
  return hashMapOrder(entries.map((e) => e[0])).map((k) => [k, byKey.get(k)])
}

/** char[]: XStream and Jackson write it as one text, not as an array of chars. */
export function isCharArray(d: Descriptor): boolean {
  return d.kind === 'array' && d.item.kind === 'scalar' && d.item.type === 'char'
}

/** The text of a char[] value: its chars (one UTF-16 unit each) joined. */
export function charArrayText(v: readonly unknown[]): string {
  let text = ''
  for (let k = 0; k < v.length; k++) {
    const c = v[k]
    if (typeof c !== 'string' || c.length !== 1)
      throw new ValueError(`expected one character, got ${kindOf(c)}`, `/${k}`)
    text += c
  }
  return text
}

/** A text as a char[]: one string per UTF-16 unit. */
export function splitChars(text: string): string[] {
  const out = new Array<string>(text.length)
  for (let k = 0; k < text.length; k++) out[k] = text[k]!
  return out
}

/** A LocalDate from the client's text: one that is not a date of the form yyyy-MM-dd is the client's error. */
export function readLocalDate(text: string): LocalDate {
  if (!LocalDate.isIso(text)) throw new ValueError(`'${text.slice(0, 40)}' is not a date of the form YYYY-MM-DD`)
  return new LocalDate(text)
}

/** Java's default of a field left out: 0 / false for primitives, null otherwise. */
export function primitiveDefault(d: Descriptor): unknown {
  if (d.kind !== 'scalar') return null
  switch (d.type) {
    case 'int':
    case 'double':
      return 0
    case 'long':
      return 0n
    case 'boolean':
      return false
    case 'char':
      return '\u0000'
    default:
      return null
  }
}
