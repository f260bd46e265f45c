import type { JavaZone } from '../java/zones'
import { errorMessage } from '../../../common/errors/internal'
import {
  t,
  type Descriptor,
  type ObjectDescriptor,
  type FieldDescriptor,
  type ScalarDescriptor,
  isNullable,
  typeName
} from '../../descriptors/descriptors'
import { ValueError } from '../errors'
import { BOM_REFUSED, JsonSyntaxError } from '../../../common/json/scan'
import { jacksonChar, parseJavaInteger, parseJavaDouble, isCharArray, primitiveDefault, splitChars } from '../java/text'
import { jacksonDate, parseJacksonDate } from '../java/dates'
import { jacksonInteger } from '../java/integers'
import type { ReadLimits } from '../../../common/contract/limits'

import { LOCAL_DATE_UNSUPPORTED, elementType } from './beta-types'
import { readBetaJsonCompiled } from './beta-json-compiled'
import { STAND_ASIDE } from '../stand-aside'

/** Per class, computed once: member name → field, and the defaults a fresh object starts from. */
interface ClassPlan {
  byName: Map<string, FieldDescriptor>
  defaults: Array<[string, unknown]>
  known: string
}
const plans = new WeakMap<ObjectDescriptor, ClassPlan>()

function planOf(d: ObjectDescriptor): ClassPlan {
  let p = plans.get(d)
  if (p === undefined) {
    p = {
      byName: new Map(d.fields.map((f) => [f.name, f])),
      defaults: d.fields.map((f) => [f.name, primitiveDefault(f.type)]),
      known: `(${d.fields.length} known properties: ${d.fields.map((f) => `"${f.name}"`).join(', ')}])`
    }
    plans.set(d, p)
  }
  return p
}

/** Whether a String is empty or blank as Jackson's coercions see it (StdDeserializer._isBlank). */
function isBlank(v: string): boolean {
  for (let k = 0; k < v.length; k++) if (v.charCodeAt(k) > 0x20) return false
  return true
}

/**
 * Jackson-style reading of beta JSON straight into values, guided by the descriptor: one pass over
 * the decoded text, no intermediate tree. The path of the value being read is kept on a stack and
 * only turned into text when an error is reported. Syntax is validated as it is read; what follows
 * the root value is ignored, as Jackson does.
 */
class Reader {
  i = 0
  private nodes = 0
  private readonly path: Array<string | number> = []

  constructor(
    private readonly s: string,
    private readonly limits: ReadLimits,
    private readonly zone: JavaZone | undefined
  ) {
    if (s.charCodeAt(0) === 0xfeff) throw new JsonSyntaxError(BOM_REFUSED, 0, 'character')
  }

  private fail(message: string): never {
    throw new ValueError(message, this.path.map((p) => `/${p}`).join(''))
  }

  private syntax(message: string): never {
    throw new JsonSyntaxError(message, this.i, 'character')
  }

  private ws(): number {
    const s = this.s
    let i = this.i
    let c = s.charCodeAt(i)
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = s.charCodeAt(++i)
    this.i = i
    return c
  }

  private kindAt(c: number): string {
    switch (c) {
      case 0x7b:
        return 'Object value (token `JsonToken.START_OBJECT`)'
      case 0x5b:
        return 'Array value (token `JsonToken.START_ARRAY`)'
      case 0x22:
        return 'String value'
      case 0x74:
        return 'Boolean value (token `JsonToken.VALUE_TRUE`)'
      case 0x66:
        return 'Boolean value (token `JsonToken.VALUE_FALSE`)'
      default:
        return 'Number value'
    }
  }

  private cannot(d: Descriptor, c: number): never {
    this.fail(`Cannot deserialize value of type \`${typeName(d)}\` from ${this.kindAt(c)}`)
  }

  /**
   * At a value of another kind than `d`, before reading it. Jackson's parser reads the token before
   * any binding (and the deserializers read a string's text), so what starts no JSON value (NaN, +1,
   * foreign digits) and a malformed number, word or string are syntax errors, not the mismatch; an
   * object or array is refused unread.
   */
  private mismatch(d: Descriptor, c: number): never {
    if (Number.isNaN(c)) this.syntax('unexpected end of JSON')
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) this.number()
    else if (c === 0x74 || c === 0x66) this.literal(c === 0x74 ? 'true' : 'false')
    else if (c === 0x22) this.string()
    else if (c !== 0x7b && c !== 0x5b) this.syntax('unexpected character')
    return this.cannot(d, c)
  }

  private literal(word: string): void {
    if (!this.s.startsWith(word, this.i))
      this.syntax(this.i >= this.s.length ? 'unexpected end of JSON' : 'unexpected character')
    this.i += word.length
  }

  /** At a quote; returns the decoded string. */
  private string(): string {
    const s = this.s
    const start = this.i + 1
    let j = start
    for (;;) {
      const c = s.charCodeAt(j)
      if (c === 0x22) break
      if (c === 0x5c || c < 0x20 || Number.isNaN(c)) return this.escapedString(start)
      j++
    }
    this.i = j + 1
    if (j - start > this.limits.maxStringLength)
      this.syntax(`a string longer than ${this.limits.maxStringLength} characters`)
    return s.slice(start, j)
  }

  private escapedString(start: number): string {
    const s = this.s
    let j = start
    for (;;) {
      const c = s.charCodeAt(j)
      if (Number.isNaN(c)) {
        this.i = j
        this.syntax('unterminated string')
      }
      if (c === 0x22) break
      if (c < 0x20) {
        this.i = j
        this.syntax('control character in string')
      }
      if (c === 0x5c) {
        const e = s.charCodeAt(j + 1)
        if (e === 0x75) {
          if (!/^[0-9a-fA-F]{4}$/.test(s.slice(j + 2, j + 6))) {
            this.i = j
            this.syntax('invalid \\u escape')
          }
          j += 6
          continue
        }
        if (!(
          e === 0x22 ||
          e === 0x5c ||
          e === 0x2f ||
          e === 0x62 ||
          e === 0x66 ||
          e === 0x6e ||
          e === 0x72 ||
          e === 0x74
        )) {
          this.i = j
          this.syntax('invalid escape')
        }
        j += 2
        continue
      }
      j++
    }
    const out = JSON.parse(s.slice(start - 1, j + 1)) as string
    this.i = j + 1
    if (out.length > this.limits.maxStringLength)
      this.syntax(`a string longer than ${this.limits.maxStringLength} characters`)
    return out
  }

  /** At '-' or a digit; returns the number's text; `integral` tells whether it has no fraction or exponent. */
  private number(): string {
    const s = this.s
    const start = this.i
    let j = start
    if (s.charCodeAt(j) === 0x2d) j++
    const d0 = j
    while (s.charCodeAt(j) >= 0x30 && s.charCodeAt(j) <= 0x39) j++
    if (j === d0 || (s.charCodeAt(d0) === 0x30 && j - d0 > 1)) {
      this.i = d0
      this.syntax('invalid number')
    }
    this.integral = true
    if (s.charCodeAt(j) === 0x2e) {
      this.integral = false
      const f0 = ++j
      while (s.charCodeAt(j) >= 0x30 && s.charCodeAt(j) <= 0x39) j++
      if (j === f0) {
        this.i = j
        this.syntax('digit expected')
      }
    }
    const e = s.charCodeAt(j)
    if (e === 0x65 || e === 0x45) {
      this.integral = false
      j++
      if (s.charCodeAt(j) === 0x2b || s.charCodeAt(j) === 0x2d) j++
      const x0 = j
      while (s.charCodeAt(j) >= 0x30 && s.charCodeAt(j) <= 0x39) j++
      if (j === x0) {
        this.i = j
        this.syntax('digit expected')
      }
    }
    this.i = j
    return s.slice(start, j)
  }

  private integral = true

  value(d: Descriptor, depth: number): unknown {
    if (++this.nodes > this.limits.maxNodes) this.syntax(`more than ${this.limits.maxNodes} values`)
    const c = this.ws()
    if (c === 0x6e) {
      // null
      this.literal('null')
      return isNullable(d) ? null : primitiveDefault(d)
    }
    switch (d.kind) {
      case 'scalar':
        return this.scalar(d, c)
      case 'object': {
        if (c !== 0x7b) this.mismatch(d, c)
        return this.object(d, depth)
      }
      case 'list':
      case 'array': {
        // Jackson reads a char[] from a String too.
        if (c === 0x22 && isCharArray(d)) return splitChars(this.string())
        if (c !== 0x5b) this.mismatch(d, c)
        if (depth >= this.limits.maxDepth) this.syntax(`nesting deeper than ${this.limits.maxDepth} levels`)
        this.i++
        const out: unknown[] = []
        if (this.ws() === 0x5d) {
          this.i++
          return out
        }
        const item = elementType(d)
        for (let k = 0; ; k++) {
          this.path.push(k)
          out.push(this.value(item, depth + 1))
          this.path.pop()
          if (!this.more(0x5d)) return out
        }
      }
      case 'map': {
        if (c !== 0x7b) this.mismatch(d, c)
        if (depth >= this.limits.maxDepth) this.syntax(`nesting deeper than ${this.limits.maxDepth} levels`)
        const out = new Map<string, unknown>()
        const value = elementType(d)
        this.members(() => {
          const key = this.string()
          this.colon()
          this.path.push(key)
          out.set(key, this.value(value, depth + 1))
          this.path.pop()
        })
        return out
      }
      case 'date':
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
          const text = this.number()
          if (this.integral) {
            try {
              return jacksonDate(text)
            } catch (err) {
              return this.fail(errorMessage(err))
            }
          }
          return this.cannot(d, c)
        } else if (c === 0x22) {
          const text = this.string()
          // StdDateFormat's reading: ISO-8601, digits as epoch milliseconds, RFC 1123; "" is null.
          try {
            return parseJacksonDate(text, this.zone)
          } catch (err) {
            return this.fail(errorMessage(err))
          }
        }
        return this.mismatch(d, c)
      case 'localDate':
        return this.fail(LOCAL_DATE_UNSUPPORTED)
      case 'any':
        return this.untyped(depth)
      case 'void':
        return this.fail('void has no value')
    }
  }

  /** After an element: true at ',' (another follows), false at `close`; anything else is a syntax error. */
  private more(close: number): boolean {
    const n = this.ws()
    this.i++
    if (n === 0x2c) return true
    if (n === close) return false
    this.i--
    return this.syntax(Number.isNaN(n) ? 'unexpected end of JSON' : `',' or '${String.fromCharCode(close)}' expected`)
  }

  private colon(): void {
    if (this.ws() !== 0x3a) this.syntax("':' expected")
    this.i++
  }

  /** At '{': calls `member` for each member (positioned at its name's quote), handling commas and '}'. */
  private members(member: () => void): void {
    this.i++
    if (this.ws() === 0x7d) {
      this.i++
      return
    }
    for (;;) {
      if (this.ws() !== 0x22) this.syntax('member name expected')
      member()
      if (!this.more(0x7d)) return
    }
  }

  private object(d: ObjectDescriptor, depth: number): Record<string, unknown> {
    if (depth >= this.limits.maxDepth) this.syntax(`nesting deeper than ${this.limits.maxDepth} levels`)
    const plan = planOf(d)
    const out: Record<string, unknown> = {}
    for (const [name, v] of plan.defaults) out[name] = v
    this.i++
    if (this.ws() === 0x7d) {
      this.i++
      return out
    }
    for (;;) {
      if (this.ws() !== 0x22) this.syntax('member name expected')
      const key = this.string()
      this.colon()
      const f = plan.byName.get(key)
      if (f === undefined)
        this.fail(`Unrecognized field "${key}" (class ${d.className}), not marked as ignorable ${plan.known}`)
      this.path.push(key)
      out[f.name] = this.value(f.type, depth + 1)
      this.path.pop()
      if (!this.more(0x7d)) return out
    }
  }

  private scalar(d: ScalarDescriptor, c: number): unknown {
    const type = d.type
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const text = this.number()
      switch (type) {
        case 'int':
        case 'Integer':
          // Fast path: up to nine digits always fit in 32 bits.
          if (this.integral && text.length <= 9) return +text
          return this.integralValue(text, 'int')
        case 'long':
        case 'Long':
          return this.integralValue(text, 'long')
        case 'double':
        case 'Double':
          return +text
        case 'String':
          return text
        case 'boolean':
        case 'Boolean':
          // Jackson coerces an integer to a boolean: 0 is false, any other true.
          if (this.integral) return !/^-?0$/.test(text)
          return this.cannot(d, c)
        default:
          return this.cannot(d, c)
      }
    }
    if (c === 0x22) {
      const v = this.string()
      if (type === 'String') return v
      if (type === 'char' || type === 'Character') {
        try {
          return jacksonChar(v, type)
        } catch (err) {
          return this.fail(errorMessage(err))
        }
      }
      // Jackson coerces an empty or blank String (every character up to U+0020, as String.trim drops
      // them) to a number or boolean as null: the box's null, the primitive's 0 or false.
      if (isBlank(v)) return isNullable(d) ? null : primitiveDefault(d)
      switch (type) {
        case 'boolean':
        case 'Boolean':
          if (v === 'true' || v === 'false') return v === 'true'
          return this.cannot(d, c)
        case 'double':
        case 'Double':
          try {
            return parseJavaDouble(v.trim())
          } catch (err) {
            return this.fail(errorMessage(err))
          }
        default:
          // Jackson coerces "6" to 6.
          try {
            return jacksonInteger(v, type === 'int' || type === 'Integer' ? 'int' : 'long')
          } catch (err) {
            if (!(err instanceof ValueError)) throw err
            return this.fail(
              `Cannot deserialize value of type \`${type}\` from String "${v.slice(0, 40)}": not a valid \`${type}\` value`
            )
          }
      }
    }
    if (c === 0x74 || c === 0x66) {
      this.literal(c === 0x74 ? 'true' : 'false')
      if (type === 'boolean' || type === 'Boolean') return c === 0x74
      if (type === 'String') return c === 0x74 ? 'true' : 'false'
    }
    if (Number.isNaN(c)) this.syntax('unexpected end of JSON')
    if (c !== 0x7b && c !== 0x5b && c !== 0x74 && c !== 0x66) this.syntax('unexpected character')
    return this.cannot(d, c)
  }

  /** Jackson truncates a fraction (6.5 → 6) when reading an integral type. */
  private integralValue(text: string, kind: 'int' | 'long'): number | bigint {
    try {
      if (this.integral) return parseJavaInteger(text, kind)
      // Jackson goes through the double: range-checked against (double) MIN/MAX, then cast (truncated).
      const x = Number(text)
      const [min, max] = kind === 'int' ? [-2147483648, 2147483647] : [-(2 ** 63), 2 ** 63]
      if (!(x >= min && x <= max))
        throw new ValueError(`${text.slice(0, 40)} is out of range of a ${kind === 'int' ? '32' : '64'}-bit integer`)
      if (kind === 'int') return Math.trunc(x) | 0
      const n = BigInt(Math.trunc(x))
      return n > 2n ** 63n - 1n ? 2n ** 63n - 1n : n
    } catch (err) {
      return this.fail(errorMessage(err))
    }
  }

  /** Jackson's untyped reading: numbers by size, objects as LinkedHashMap, arrays as ArrayList. */
  private untyped(depth: number): unknown {
    const c = this.ws()
    if (c === 0x22) return this.string()
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const text = this.number()
      if (!this.integral) {
        const x = +text
        // A double that looks integral (2.0) would come back as an Integer: keep its type.
        return Number.isInteger(x) ? t.typed(t.Double, x) : x
      }
      const n = BigInt(text)
      return n >= -2147483648n && n <= 2147483647n ? Number(n) : n
    }
    if (c === 0x74) {
      this.literal('true')
      return true
    }
    if (c === 0x66) {
      this.literal('false')
      return false
    }
    if (c === 0x6e) {
      this.literal('null')
      return null
    }
    if (depth >= this.limits.maxDepth) this.syntax(`nesting deeper than ${this.limits.maxDepth} levels`)
    if (++this.nodes > this.limits.maxNodes) this.syntax(`more than ${this.limits.maxNodes} values`)
    if (c === 0x5b) {
      this.i++
      const out: unknown[] = []
      if (this.ws() === 0x5d) {
        this.i++
        return out
      }
      for (let k = 0; ; k++) {
        this.path.push(k)
        out.push(this.untyped(depth + 1))
        this.path.pop()
        if (!this.more(0x5d)) return out
      }
    }
    if (c === 0x7b) {
      const out = new Map<string, unknown>()
      this.members(() => {
        const key = this.string()
        this.colon()
        this.path.push(key)
        out.set(key, this.untyped(depth + 1))
        this.path.pop()
      })
      return out
    }
    return this.syntax(Number.isNaN(c) ? 'unexpected end of JSON' : 'unexpected character')
  }
}

// ---- the fast path: V8's JSON.parse, then a check against the descriptor ----

/**
 * Types whose every value JSON.parse reads exactly as Jackson does: no 64-bit integers (JSON.parse
 * rounds them), no maps (V8 reorders integer-like keys), no Object slots (numbers need their
 * source text), no dates. Computed once per descriptor.
 */
const eligible = new WeakMap<Descriptor, boolean>()

function fastEligible(d: Descriptor): boolean {
  let e = eligible.get(d)
  if (e === undefined) {
    switch (d.kind) {
      case 'scalar':
        e = d.type !== 'long' && d.type !== 'Long'
        break
      case 'object':
        eligible.set(d, true)
        e = d.fields.every((f) => fastEligible(f.type))
        break
      case 'list':
      case 'array':
        e = fastEligible(d.item)
        break
      default:
        e = false
    }
    eligible.set(d, e)
  }
  return e
}

/** Thrown inside the fast path when a value needs the exact reader (a coercion, an error to word). */

/** Checks (and where needed converts in place) a JSON.parse value; throws STAND_ASIDE when unsure. */
type Check = (v: unknown, budget: Budget) => unknown
interface Budget {
  nodes: number
  maxStringLength: number
}

/** One checker per descriptor, compiled once: no dispatch or lookups per value at run time. */
const checkers = new WeakMap<Descriptor, Check>()

function compile(d: Descriptor): Check {
  const cached = checkers.get(d)
  if (cached !== undefined) return cached
  const nullable = isNullable(d)
  const dflt = primitiveDefault(d)
  let check: Check
  switch (d.kind) {
    case 'scalar':
      switch (d.type) {
        case 'int':
        case 'Integer':
          // Jackson truncates 6.5 to 6; out-of-range numbers and coerced strings need the exact reader.
          check = (v) => {
            if (typeof v === 'number' && v >= -2147483648 && v < 2147483648) return Math.trunc(v)
            if (v === null) return nullable ? null : dflt
            throw STAND_ASIDE
          }
          break
        case 'double':
        case 'Double':
          check = (v) => {
            if (typeof v === 'number') return v
            if (v === null) return nullable ? null : dflt
            throw STAND_ASIDE
          }
          break
        case 'boolean':
        case 'Boolean':
          check = (v) => {
            if (typeof v === 'boolean') return v
            if (v === null) return nullable ? null : dflt
            throw STAND_ASIDE
          }
          break
        case 'char':
        case 'Character':
          check = (v) => {
            if (typeof v === 'string' && v.length === 1) return v
            if (v === null) return nullable ? null : dflt
            throw STAND_ASIDE
          }
          break
        default:
          // A number read into a String keeps its source text in Jackson: only the exact reader has it.
          check = (v, b) => {
            if (typeof v === 'string' && v.length <= b.maxStringLength) return v
            if (v === null) return null
            throw STAND_ASIDE
          }
      }
      break
    case 'object': {
      const plan = planOf(d)
      const names = d.fields.map((f) => f.name)
      const defaults = d.fields.map((f) => primitiveDefault(f.type))
      const fieldChecks: Check[] = []
      checkers.set(d, (v, b) => objectCheck(v, b))
      for (const f of d.fields) fieldChecks.push(compile(f.type))
      const n = names.length
      const objectCheck: Check = (v, b) => {
        if (v === null) return null
        if (typeof v !== 'object' || Array.isArray(v)) throw STAND_ASIDE
        if (--b.nodes < 0) throw STAND_ASIDE
        const o = v as Record<string, unknown>
        // Every key must be a declared field ('__proto__' from JSON.parse is an own key and fails here).
        for (const k in o) if (!plan.byName.has(k)) throw STAND_ASIDE
        for (let k = 0; k < n; k++) {
          const name = names[k]!
          const x = o[name]
          o[name] = x === undefined ? defaults[k] : fieldChecks[k]!(x, b)
        }
        return o
      }
      check = objectCheck
      break
    }
    case 'list':
    case 'array': {
      checkers.set(d, (v, b) => listCheck(v, b))
      const item = compile(elementType(d))
      const listCheck: Check = (v, b) => {
        if (v === null) return null
        if (!Array.isArray(v)) throw STAND_ASIDE
        b.nodes -= v.length
        if (b.nodes < 0) throw STAND_ASIDE
        for (let k = 0; k < v.length; k++) v[k] = item(v[k], b)
        return v
      }
      check = listCheck
      break
    }
    default:
      check = () => {
        throw STAND_ASIDE
      }
  }
  checkers.set(d, check)
  return check
}

/** Reads one beta JSON document (bytes, UTF-8) as a value of type d. */
export function readBetaJsonBytes(bytes: Uint8Array, d: Descriptor, limits: ReadLimits, zone?: JavaZone): unknown {
  const direct = readBetaJsonCompiled(bytes, d, limits)
  if (direct !== STAND_ASIDE) return direct
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  const parsed = readBetaJsonParsed(text, d, limits)
  return parsed !== STAND_ASIDE ? parsed : readBetaJsonExact(text, d, limits, zone)
}

/** The last tier: reads every document Jackson reads and words every error. */
export function readBetaJsonExact(text: string, d: Descriptor, limits: ReadLimits, zone?: JavaZone): unknown {
  return new Reader(text, limits, zone).value(d, 0)
}

/** JSON.parse and a check against the descriptor, or STAND_ASIDE when the exact reader must decide. */
export function readBetaJsonParsed(text: string, d: Descriptor, limits: ReadLimits): unknown {
  if (!fastEligible(d)) return STAND_ASIDE
  let parsed: unknown
  try {
    // JSON.parse refuses a BOM, trailing content and any syntax error: all go to the exact reader.
    parsed = JSON.parse(text)
  } catch (err) {
    if (err instanceof SyntaxError) return STAND_ASIDE
    throw err
  }
  try {
    return compile(d)(parsed, { nodes: limits.maxNodes, maxStringLength: limits.maxStringLength })
  } catch (err) {
    if (err === STAND_ASIDE) return STAND_ASIDE
    throw err
  }
}
