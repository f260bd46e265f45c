/**
 * Double.toString as Java 17 prints it. Java 17's FloatingDecimal is not the shortest form that
 * reads back (JDK-4511638, fixed in Java 19): an integral value below 2^63 prints its exact digits
 * (138545688736438432 is 1.38545688736438432E17, where 1.3854568873643843E17 would do), and the
 * digit loop stops on a symmetric test that sometimes keeps a digit too many or too few
 * (-4.9E-323 where -5.0E-323 is shortest). The Java writers print doubles this way, so ours do too.
 * This follows the published structure of that algorithm (an integer "easy" path; otherwise
 * B/S/M scaled by powers of 2 and 5, digits developed in int, long or big-integer arithmetic with
 * the same overflow behaviour); the differential tests hold it to Java's output.
 */

const EXP_SHIFT = 52
const FRACT_HOB = 1n << 52n
const SIGNIF_MASK = FRACT_HOB - 1n
const MAX_SMALL_BIN_EXP = 62
const MIN_SMALL_BIN_EXP = -21
/** Approximately ceil(log2(5^i)). */
const N_5_BITS = [
  0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56, 59, 61
]
/** The number of decimal digits of 2^p beyond the first (for p in 2..63). */
const INSIGNIFICANT_FOR_POW2 = [
  0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 11,
  11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16, 16, 17, 17, 17, 18, 18, 18, 19
]
const SMALL_5_POW = Array.from({ length: 14 }, (_, i) => 5 ** i)
const LONG_5_POW = Array.from({ length: 27 }, (_, i) => 5n ** BigInt(i))

const f64 = new Float64Array(1)
const u64 = new BigUint64Array(f64.buffer)

const int64 = (x: bigint): bigint => BigInt.asIntN(64, x)

interface Digits {
  digits: number[]
  /** The decimal exponent: value = 0.d1d2d3... × 10^decExponent. */
  decExponent: number
}

function insignificantDigitsForPow2(p2: number): number {
  return p2 > 1 && p2 < INSIGNIFICANT_FOR_POW2.length ? INSIGNIFICANT_FOR_POW2[p2]! : 0
}

/** An integral value's digits, the low `insignificant` ones rounded off, trailing zeros dropped. */
function longDigits(value: bigint, insignificant: number): Digits {
  let decExponent = 0
  if (insignificant !== 0) {
    const pow10 = 10n ** BigInt(insignificant)
    const residue = value % pow10
    value /= pow10
    decExponent += insignificant
    if (residue >= pow10 >> 1n) value++
  }
  let text = value.toString()
  const trimmed = text.replace(/0+$/, '')
  decExponent += text.length - trimmed.length
  text = trimmed
  decExponent += text.length - 1
  return { digits: [...text].map((c) => c.charCodeAt(0) - 48), decExponent: decExponent + 1 }
}

/** FloatingDecimal's estimate of floor(log10(d)) from the significand and binary exponent. */
function estimateDecExp(fractBits: bigint, binExp: number): number {
  u64[0] = (1023n << 52n) | (fractBits & SIGNIF_MASK)
  const d2 = f64[0]!
  return Math.floor((d2 - 1.5) * 0.289529654 + 0.176091259 + binExp * 0.301029995663981)
}

function trailingZeros(x: bigint): number {
  let n = 0
  while ((x & 1n) === 0n) {
    x >>= 1n
    n++
  }
  return n
}

function roundUp(r: Digits): void {
  const d = r.digits
  let i = d.length - 1
  while (i > 0 && d[i] === 9) d[i--] = 0
  if (d[i] === 9) {
    // Carry out of the first digit: 9.99 becomes 1.00 with a larger exponent.
    d[0] = 1
    r.decExponent += 1
    return
  }
  d[i]! += 1
}

function dtoa(binExp: number, fractBits: bigint, nSignificantBits: number): Digits {
  const tailZeros = trailingZeros(fractBits)
  const nFractBits = EXP_SHIFT + 1 - tailZeros
  const nTinyBits = Math.max(0, nFractBits - binExp - 1)
  if (binExp <= MAX_SMALL_BIN_EXP && binExp >= MIN_SMALL_BIN_EXP && nTinyBits === 0) {
    // An integral value below 2^63: its digits, exactly (the "easy case").
    const insignificant = binExp > nSignificantBits ? insignificantDigitsForPow2(binExp - nSignificantBits - 1) : 0
    const value =
      binExp >= EXP_SHIFT ? fractBits << BigInt(binExp - EXP_SHIFT) : fractBits >> BigInt(EXP_SHIFT - binExp)
    return longDigits(value, insignificant)
  }
  let decExp = estimateDecExp(fractBits, binExp)
  const B5 = Math.max(0, -decExp)
  let B2 = B5 + nTinyBits + binExp
  const S5 = Math.max(0, decExp)
  let S2 = S5 + nTinyBits
  const M5 = B5
  let M2 = B2 - nSignificantBits
  const fract = fractBits >> BigInt(tailZeros)
  B2 -= nFractBits - 1
  const common2 = Math.min(B2, S2)
  B2 -= common2
  S2 -= common2
  M2 -= common2
  // A power of two: the next smaller double is half as far away.
  if (nFractBits === 1) M2 -= 1
  if (M2 < 0) {
    B2 -= M2
    S2 -= M2
    M2 = 0
  }
  const bBits = nFractBits + B2 + (B5 < N_5_BITS.length ? N_5_BITS[B5]! : B5 * 3)
  const tenSBits = S2 + 1 + (S5 + 1 < N_5_BITS.length ? N_5_BITS[S5 + 1]! : (S5 + 1) * 3)
  const digits: number[] = []
  let low: boolean
  let high: boolean
  let lowDigitDifference: number
  // After the first digit, E-form output needs a second one.
  const eForm = (): boolean => decExp < -3 || decExp >= 8
  if (bBits < 32 && tenSBits < 32) {
    // 32-bit arithmetic, wrapping as Java's int does.
    let b = Math.imul(Number(fract), SMALL_5_POW[B5]!) << B2
    const s = SMALL_5_POW[S5]! << S2
    let m = SMALL_5_POW[M5]! << M2
    const tens = Math.imul(s, 10)
    let q = Math.trunc(b / s)
    b = Math.imul(10, b % s)
    m = Math.imul(m, 10)
    low = b < m
    high = ((b + m) | 0) > tens
    if (q === 0 && !high) decExp--
    else digits.push(q)
    if (eForm()) high = low = false
    while (!low && !high) {
      q = Math.trunc(b / s)
      b = Math.imul(10, b % s)
      m = Math.imul(m, 10)
      if (m > 0) {
        low = b < m
        high = ((b + m) | 0) > tens
      } else {
        low = high = true
      }
      digits.push(q)
    }
    lowDigitDifference = ((b << 1) - tens) | 0
  } else if (bBits < 64 && tenSBits < 64) {
    // 64-bit arithmetic, wrapping as Java's long does.
    let b = int64((fract * LONG_5_POW[B5]!) << BigInt(B2))
    const s = int64(LONG_5_POW[S5]! << BigInt(S2))
    let m = int64(LONG_5_POW[M5]! << BigInt(M2))
    const tens = int64(s * 10n)
    let q = Number(b / s)
    b = int64(10n * (b % s))
    m = int64(m * 10n)
    low = b < m
    high = int64(b + m) > tens
    if (q === 0 && !high) decExp--
    else digits.push(q)
    if (eForm()) high = low = false
    while (!low && !high) {
      q = Number(b / s)
      b = int64(10n * (b % s))
      m = int64(m * 10n)
      if (m > 0n) {
        low = b < m
        high = int64(b + m) > tens
      } else {
        low = high = true
      }
      digits.push(q)
    }
    const diff = int64((b << 1n) - tens)
    lowDigitDifference = diff === 0n ? 0 : diff > 0n ? 1 : -1
  } else {
    // Big integers; M and 10S are kept ten times over, as B is once its first digit is taken.
    const s = (5n ** BigInt(S5)) << BigInt(S2)
    let b = (fract * 5n ** BigInt(B5)) << BigInt(B2)
    let m = (5n ** BigInt(M5 + 1)) << BigInt(M2 + 1)
    const tenS = (5n ** BigInt(S5 + 1)) << BigInt(S2 + 1)
    let q = Number(b / s)
    b = 10n * (b % s)
    low = b < m
    high = tenS <= b + m
    if (q === 0 && !high) decExp--
    else digits.push(q)
    if (eForm()) high = low = false
    while (!low && !high) {
      q = Number(b / s)
      b = 10n * (b % s)
      m *= 10n
      low = b < m
      high = tenS <= b + m
      digits.push(q)
    }
    lowDigitDifference = 0
    if (high && low) {
      const twice = b << 1n
      lowDigitDifference = twice === tenS ? 0 : twice > tenS ? 1 : -1
    }
  }
  const r: Digits = { digits, decExponent: decExp + 1 }
  // The last digit is rounded by the stopping condition.
  if (high) {
    if (!low || lowDigitDifference > 0 || (lowDigitDifference === 0 && (digits[digits.length - 1]! & 1) !== 0))
      roundUp(r)
  }
  return r
}

/** Java's layout: 123.45, 0.00123, 1.2345E10, at least one digit after the point. */
function layout(negative: boolean, r: Digits): string {
  const d = r.digits.join('')
  const e = r.decExponent
  let out: string
  if (e > 0 && e < 8) {
    if (d.length <= e) out = `${d}${'0'.repeat(e - d.length)}.0`
    else out = `${d.slice(0, e)}.${d.slice(e)}`
  } else if (e <= 0 && e > -3) {
    out = `0.${'0'.repeat(-e)}${d}`
  } else {
    out = `${d[0]}.${d.length > 1 ? d.slice(1) : '0'}E${e - 1}`
  }
  return negative ? `-${out}` : out
}

/** Java 17's Double.toString: 2.0, 1.5, 1.0E20, 1.0E-7, NaN, Infinity, and its non-shortest forms. */
export function javaDoubleToString(x: number): string {
  if (Number.isNaN(x)) return 'NaN'
  if (x === Infinity) return 'Infinity'
  if (x === -Infinity) return '-Infinity'
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0'
  f64[0] = x
  const bits = u64[0]!
  const negative = bits >> 63n === 1n
  let fractBits = bits & SIGNIF_MASK
  let binExp = Number((bits >> 52n) & 0x7ffn)
  let nSignificantBits: number
  if (binExp === 0) {
    // Subnormal: normalise so that the high-order bit is at bit 52.
    const leadingZeros = 64 - fractBits.toString(2).length
    const shift = leadingZeros - (63 - EXP_SHIFT)
    fractBits <<= BigInt(shift)
    binExp = 1 - shift
    nSignificantBits = 64 - leadingZeros
  } else {
    fractBits |= FRACT_HOB
    nSignificantBits = EXP_SHIFT + 1
  }
  binExp -= 1023
  return layout(negative, dtoa(binExp, fractBits, nSignificantBits))
}
