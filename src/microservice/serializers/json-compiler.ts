import { STAND_ASIDE } from './stand-aside'
import type { ReadLimits } from '../../common/contract/limits'
import type { FastBuffer } from '../../common/bytes/fast-buffer'

/**
 * What the generated JSON readers (beta JSON in beta-json-compiled, alpha JSON in alpha-json-compiled)
 * share: the source of their tokens and the way they are compiled. A compiled reader is one
 * function with the cursor `i` and the current byte `c` in locals; it throws G (STAND_ASIDE) on
 * anything it does not read, and its caller then reads the input the slower, exact way, which words
 * the errors. Only descriptors reach the source: names as byte comparisons, constants by index.
 */
export type CompiledReader = (b: Uint8Array, text: FastBuffer, limits: ReadLimits) => unknown

/** A compiled reader past this size is not worth its compilation. */
export const MAX_SOURCE = 256 * 1024

/** Steps over JSON whitespace; leaves the byte at i in c. */
export const SKIP = 'for (c = b[i]; c === 32 || c === 10 || c === 13 || c === 9; c = b[++i]);'

/** 10^0 … 10^22, each exact in a double. */
const POW10 = Array.from({ length: 23 }, (_, e) => Number(`1e${e}`))

/** Names a reader's locals and holds what its source refers to by index: K[n] byte strings, D[n] values. */
export class SourceParts {
  readonly keys: Uint8Array[] = []
  readonly defaults: unknown[] = []
  private n = 0
  /** In UTF-16 units: a tree reader refuses a member name past maxStringLength as it refuses a value. */
  private longestKey = 0

  id(): number {
    return this.n++
  }

  constant(v: unknown): string {
    if (v === null) return 'null'
    if (typeof v === 'number' || typeof v === 'boolean') return Object.is(v, -0) ? '-0' : String(v)
    this.defaults.push(v)
    return `D[${this.defaults.length - 1}]`
  }

  /**
   * An expression true when `"name"` (unescaped) is at i, and its length in bytes; null when the name
   * would need escapes to be written.
   */
  keyTest(name: string): { test: string; length: number } | null {
    if (/["\\\u0000-\u001f]/.test(name)) return null
    const bytes = Buffer.from(name, 'utf8')
    const length = bytes.length + 2
    this.longestKey = Math.max(this.longestKey, name.length)
    if (bytes.length > 24) {
      this.keys.push(bytes)
      return { test: `b[i] === 34 && b[i + ${length - 1}] === 34 && M(b, i + 1, K[${this.keys.length - 1}])`, length }
    }
    const checks = [
      `b[i] === 34`,
      ...[...bytes].map((x, j) => `b[i + ${j + 1}] === ${x}`),
      `b[i + ${length - 1}] === 34`
    ]
    return { test: checks.join(' && '), length }
  }

  /** Compiles `body` (the statements of `read(b, text, limits)`) with the locals every reader uses. */
  compile(body: string): CompiledReader | null {
    if (body.length > MAX_SOURCE) return null
    const source = `
      let i = 0, c = 0, nodes = limits.maxNodes, depth = 0
      const maxDepth = limits.maxDepth, maxString = limits.maxStringLength
      if (maxString < ${this.longestKey}) throw G
      ${body}`
    const make = new Function('G', 'K', 'D', 'P', 'M', `return function read(b, text, limits) {${source}}`) as (
      g: symbol,
      k: Uint8Array[],
      defaults: unknown[],
      pow10: number[],
      matches: typeof bytesAt
    ) => CompiledReader
    return make(STAND_ASIDE, this.keys, this.defaults, POW10, bytesAt)
  }
}

function bytesAt(b: Uint8Array, at: number, key: Uint8Array): boolean {
  for (let j = 0; j < key.length; j++) if (b[at + j] !== key[j]) return false
  return true
}

/** Runs a compiled reader on bytes: its value, or STAND_ASIDE. */
export function runGenerated(read: CompiledReader, bytes: Uint8Array, limits: ReadLimits): unknown {
  try {
    return read(bytes, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as FastBuffer, limits)
  } catch (err) {
    if (err === STAND_ASIDE) return STAND_ASIDE
    throw err
  }
}

/**
 * An object read into locals: `open` checks and counts the '{', the locals get their defaults, each
 * member's code breaks out of block m<k> at the '}', a member left over gives up, and the object is
 * built by a literal (so its keys have the declared order whatever order the members came in).
 */
export function objectSource(k: number, open: string, locals: string[], defaults: string[], members: string[]): string {
  return `${open}
    i++
    ${SKIP}
    ${locals.map((v, n) => `let ${v} = ${defaults[n]!}`).join('\n')}
    m${k}: {
      if (c === 125) {
        i++
        break m${k}
      }
      ${members.join('\n')}
      throw G
    }
    depth--`
}

/** A string without escapes or control characters at i, decoded from UTF-8 as the whole text would be. */
export function stringSource(target: string, k: number): string {
  return `if (b[i] !== 34) throw G
    const s${k} = ++i
    let ascii${k} = true
    for (c = b[i]; c !== 34; c = b[++i]) {
      if (c === 92 || c === undefined || c < 32) throw G
      if (c >= 128) ascii${k} = false
    }
    ${target} = ascii${k} ? text.latin1Slice(s${k}, i) : text.utf8Slice(s${k}, i)
    i++
    if (${target}.length > maxString) throw G`
}

export interface IntegerRules {
  /** More digits than this: the reader gives up. */
  maxDigits: number
  /** Whether `-0` is the value -0 (JSON.parse) or 0 (Jettison, through Long). */
  negativeZero: boolean
  /** Give up outside Java's int range. */
  int32: boolean
  /** The value as a BigInt (a Java long). */
  bigint: boolean
}

/** A JSON integer at i, no fraction and no exponent, read by the rules; anything else gives up. */
export function integerSource(target: string, k: number, rules: IntegerRules): string {
  const value = rules.bigint ? `BigInt(v${k})` : `v${k}`
  return `let neg${k} = false
    c = b[i]
    if (c === 45) {
      neg${k} = true
      c = b[++i]
    }
    if (c === 48) {
      c = b[++i]
      if ((c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69) throw G
      ${target} = ${rules.bigint ? '0n' : rules.negativeZero ? `neg${k} ? -0 : 0` : '0'}
    } else {
      const s${k} = i
      let v${k} = 0
      while (c >= 48 && c <= 57) {
        v${k} = v${k} * 10 + (c - 48)
        c = b[++i]
      }
      if (i === s${k} || i - s${k} > ${rules.maxDigits} || c === 46 || c === 101 || c === 69) throw G
      if (neg${k}) v${k} = -v${k}
      ${rules.int32 ? `if (v${k} < -2147483648 || v${k} >= 2147483648) throw G` : ''}
      ${target} = ${value}
    }`
}

/**
 * A JSON number at i of up to 15 significant digits and a power of ten up to 22, whose value is one
 * exact division or product (Clinger's fast path), so it rounds as JSON.parse and Double.parseDouble
 * do. Converting other numbers' text here (Number) costs several times what JSON.parse spends.
 * `negativeZero` false: a negative number of value zero gives up (Jettison reads "-0" as 0, "-0.0" as -0).
 */
export function doubleSource(target: string, k: number, negativeZero: boolean): string {
  return `{
    let neg = false, m = 0, digits = 0, scale = 0, exp = 0
    c = b[i]
    if (c === 45) {
      neg = true
      c = b[++i]
    }
    if (c === 48) c = b[++i]
    else {
      if (!(c >= 49 && c <= 57)) throw G
      while (c >= 48 && c <= 57) {
        m = m * 10 + (c - 48)
        digits++
        c = b[++i]
      }
    }
    if (c === 46) {
      c = b[++i]
      const f${k} = i
      while (c >= 48 && c <= 57) {
        m = m * 10 + (c - 48)
        c = b[++i]
      }
      scale = i - f${k}
      if (scale === 0) throw G
      digits += scale
    }
    if (c === 101 || c === 69) {
      c = b[++i]
      let expNeg = false
      if (c === 43 || c === 45) {
        expNeg = c === 45
        c = b[++i]
      }
      const e${k} = i
      while (c >= 48 && c <= 57 && i - e${k} < 6) {
        exp = exp * 10 + (c - 48)
        c = b[++i]
      }
      if (i === e${k} || (c >= 48 && c <= 57)) throw G
      if (expNeg) exp = -exp
    }
    const e = exp - scale
    if (digits > 15 || e < -22 || e > 22) throw G
    ${negativeZero ? '' : 'if (neg && m === 0) throw G'}
    const v = e >= 0 ? m * P[e] : m / P[-e]
    ${target} = neg ? -v : v
  }`
}
