import { ValueError } from '../errors'

/**
 * Integers as the Java originals read them, rule for rule: `Character.digit` (any Unicode decimal
 * digit, ASCII and fullwidth Latin letters), `Long.parseLong` (one optional sign, at least one digit,
 * no spaces), `Long.decode` (sign, then `0x`/`0X`/`#` hex or a leading `0` for octal) and XStream's
 * IntConverter (Long.decode, then anything from Integer.MIN_VALUE to 0xFFFFFFFF, wrapped to 32 bits)
 * and LongConverter (Long.decode, except 16 hex or 22 octal digits, read as 64 unsigned bits).
 * Every refusal is a ValueError (400 BAD_ARGUMENT), never anything else.
 */

const LONG_MIN = -(2n ** 63n)
const LONG_MAX = 2n ** 63n - 1n
const UINT32_MAX = 0xffffffffn
const INT_MIN = -(2n ** 31n)
const ND = /^\p{Nd}$/u

/** Java's Character.digit(char, radix) for one UTF-16 unit; -1 when it is not a digit of that radix. */
export function javaDigit(unit: number, radix: number): number {
  let d = -1
  if (unit >= 0x30 && unit <= 0x39) d = unit - 0x30
  else if (unit >= 0x41 && unit <= 0x5a) d = unit - 0x41 + 10
  else if (unit >= 0x61 && unit <= 0x7a) d = unit - 0x61 + 10
  else if (unit >= 0xff21 && unit <= 0xff3a)
    d = unit - 0xff21 + 10 // fullwidth A-Z
  else if (unit >= 0xff41 && unit <= 0xff5a)
    d = unit - 0xff41 + 10 // fullwidth a-z
  else if (unit < 0xd800 || unit > 0xdfff) {
    const ch = String.fromCharCode(unit)
    if (ND.test(ch)) {
      // Unicode decimal digits come in runs of ten from a zero: the value is the place in the run.
      let start = unit
      while (ND.test(String.fromCharCode(start - 1))) start--
      d = (unit - start) % 10
    }
  }
  return d < radix ? d : -1
}

/** Java 17's NumberFormatException.forInputString: the radix is named when it is not 10. */
function refuse(text: string, radix = 10): never {
  const shown = text.length > 60 ? `${text.slice(0, 60)}…` : text
  throw new ValueError(`For input string: "${shown}"${radix === 10 ? '' : ` under radix ${radix}`}`)
}

/** Long.parseLong(s, radix). */
export function javaParseLong(s: string, radix: number): bigint {
  let i = 0
  let negative = false
  if (s.length === 0) refuse(s, radix)
  const first = s.charCodeAt(0)
  if (first < 0x30) {
    if (first === 0x2d) negative = true
    else if (first !== 0x2b) refuse(s, radix)
    if (s.length === 1) refuse(s, radix)
    i = 1
  }
  const r = BigInt(radix)
  let value = 0n
  for (; i < s.length; i++) {
    const d = javaDigit(s.charCodeAt(i), radix)
    if (d < 0) refuse(s, radix)
    value = value * r + BigInt(d)
    if (value > 2n ** 63n) refuse(s, radix)
  }
  const out = negative ? -value : value
  if (out < LONG_MIN || out > LONG_MAX) refuse(s, radix)
  return out
}

/** Long.decode(s). */
export function javaLongDecode(s: string): bigint {
  if (s.length === 0) throw new ValueError('Zero length string')
  let i = 0
  let negative = false
  let radix = 10
  if (s[0] === '-') {
    negative = true
    i++
  } else if (s[0] === '+') i++
  if (s.startsWith('0x', i) || s.startsWith('0X', i)) {
    i += 2
    radix = 16
  } else if (s.startsWith('#', i)) {
    i++
    radix = 16
  } else if (s.startsWith('0', i) && s.length > 1 + i) {
    i++
    radix = 8
  }
  if (s.startsWith('-', i) || s.startsWith('+', i)) throw new ValueError('Sign character in wrong position')
  // Java parses the magnitude and negates; Long.MIN_VALUE's magnitude overflows and is parsed again
  // with its sign, which comes to the same as parsing the signed text here.
  return javaParseLong(negative ? `-${s.slice(i)}` : s.slice(i), radix)
}

/** XStream's IntConverter.fromString. */
export function xstreamInt(s: string): number {
  const plain = plainDecimal(s, 9)
  if (plain !== null) return plain
  const v = javaLongDecode(s)
  if (v < INT_MIN || v > UINT32_MAX) refuse(s)
  return Number(BigInt.asIntN(32, v))
}

/**
 * The value of `-?[1-9][0-9]*` of at most `maxDigits` digits, or "0"; null for any other text. What
 * most numbers look like: Long.decode gives them their decimal value, which BigInt arithmetic per
 * digit made the slowest part of reading a large list of ints.
 */
export function plainDecimal(s: string, maxDigits: number): number | null {
  const n = s.length
  const negative = s.charCodeAt(0) === 0x2d
  const from = negative ? 1 : 0
  if (n === from || n - from > maxDigits) return null
  const first = s.charCodeAt(from)
  // A leading 0 is octal to Long.decode (and "-0" is 0, not -0): those go the long way.
  if (first < 0x31 || first > 0x39) return first === 0x30 && n === 1 ? 0 : null
  let v = first - 0x30
  for (let k = from + 1; k < n; k++) {
    const d = s.charCodeAt(k) - 0x30
    if (d < 0 || d > 9) return null
    v = v * 10 + d
  }
  return negative ? -v : v
}

/** XStream's LongConverter.fromString. */
export function xstreamLong(s: string): bigint {
  const plain = plainDecimal(s, 15)
  if (plain !== null) return BigInt(plain)
  const len = s.length
  if (len < 17 || (s[0] !== '0' && s[0] !== '#')) return javaLongDecode(s)
  let high: bigint
  let low: bigint
  if (s[0] === '#' && len === 17) {
    high = javaParseLong(s.slice(1, 9), 16) << 32n
    low = javaParseLong(s.slice(9, 17), 16)
  } else if ((s[1] === 'x' || s[1] === 'X') && len === 18) {
    high = javaParseLong(s.slice(2, 10), 16) << 32n
    low = javaParseLong(s.slice(10, 18), 16)
  } else if (len === 23 && s[1] === '1') {
    high = javaParseLong(s.slice(1, 12), 8) << 33n
    low = javaParseLong(s.slice(12, 23), 8)
  } else return javaLongDecode(s)
  return BigInt.asIntN(64, high | low)
}

/** Java's String.trim: every character up to U+0020 off both ends (Unicode spaces stay). */
export function javaTrim(s: string): string {
  let a = 0
  let b = s.length
  while (a < b && s.charCodeAt(a) <= 0x20) a++
  while (b > a && s.charCodeAt(b - 1) <= 0x20) b--
  return a === 0 && b === s.length ? s : s.slice(a, b)
}

/**
 * Jackson's coercion of text to an Integer or Long (a JSON string, XML text): trimmed as String.trim
 * does, then read as Integer.parseInt / Long.parseLong do (its fast path falls back to them for
 * anything but ASCII digits, so a sign or any Unicode decimal digit is accepted).
 */
export function jacksonInteger(text: string, kind: 'int' | 'long'): number | bigint {
  const t = javaTrim(text)
  const type = kind === 'int' ? 'java.lang.Integer' : 'java.lang.Long'
  const shown = t.length > 40 ? `${t.slice(0, 40)}…` : t
  let v: bigint
  try {
    v = javaParseLong(t, 10)
  } catch (err) {
    if (!(err instanceof ValueError)) throw err
    // Jackson reads an over-long digit string as an overflow, anything else as not a number.
    if (/^[-+]?\p{Nd}+$/u.test(t))
      throw new ValueError(`Overflow: numeric value (${shown}) out of range of \`${type}\``)
    throw new ValueError(
      `Cannot deserialize value of type \`${type}\` from String "${shown}": not a valid \`${type}\` value`
    )
  }
  if (kind === 'long') return v
  if (v < INT_MIN || v > 2n ** 31n - 1n)
    throw new ValueError(`Overflow: numeric value (${shown}) out of range of \`${type}\``)
  return Number(v)
}
