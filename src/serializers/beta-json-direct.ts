import { isNullable, type Descriptor, type ObjectDescriptor } from '../descriptors/types'
import { primitiveDefault } from './alpha-node'
import { elementType } from './beta-common'
import type { ReadLimits } from '../core/limits'

/**
 * Beta JSON read straight from the argument's bytes into values, for the common documents only:
 * no escapes in strings, numbers that fit their slot, declared members. It returns exactly what
 * `JSON.parse` plus the descriptor check returns (same values, same member order, defaults for
 * missing members appended in declared order), and gives up with NOT_HANDLED on anything else,
 * leaving it to that path and the exact reader, which word the errors.
 *
 * Why: a microservice reading a 1 MB argument spent ~9 ms in JSON.parse and the check, more than
 * the gateway's whole hop; reading the bytes with the types known skips the text decode, the
 * generic parse and the second walk.
 */
export const NOT_HANDLED: unique symbol = Symbol('not handled')

type Read = () => unknown

/** Buffer's slice decoders without toString's argument handling (Node has them; its typings do not). */
interface Decoding extends Buffer {
  latin1Slice(start: number, end: number): string
  utf8Slice(start: number, end: number): string
}

// The document being read. Module state rather than an object passed around: every reader is a
// closure compiled once per descriptor, and the cursor is touched on every byte.
const EMPTY = Buffer.alloc(0) as Decoding
let b: Uint8Array = EMPTY
let text = EMPTY
let i = 0
let nodes = 0
let depth = 0
let maxDepth = 0
let maxStringLength = 0

/** Thrown inside, caught at the top: cheaper than checking a result after every value. */
const GIVE_UP = NOT_HANDLED

const readers = new WeakMap<Descriptor, Read | null>()

/** Reads one beta JSON document of type d, or returns NOT_HANDLED. */
export function readBetaJsonDirect(bytes: Uint8Array, d: Descriptor, limits: ReadLimits): unknown {
  const read = readerOf(d)
  if (read === null) return NOT_HANDLED
  b = bytes
  text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as Decoding
  i = 0
  nodes = limits.maxNodes
  depth = 0
  maxDepth = limits.maxDepth
  maxStringLength = limits.maxStringLength
  try {
    skip()
    const v = read()
    skip()
    return i === b.length ? v : NOT_HANDLED
  } catch (err) {
    if (err === GIVE_UP) return NOT_HANDLED
    throw err
  } finally {
    b = EMPTY
    text = EMPTY
  }
}

function skip(): void {
  let c = b[i]
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++i]
}

/** The reader for d, compiled once; null when d holds a type this path does not read. */
function readerOf(d: Descriptor): Read | null {
  let r = readers.get(d)
  if (r !== undefined) return r
  r = compile(d)
  readers.set(d, r)
  return r
}

function compile(d: Descriptor): Read | null {
  switch (d.kind) {
    case 'scalar': {
      const absent = isNullable(d) ? null : primitiveDefault(d)
      switch (d.type) {
        case 'int':
        case 'Integer':
          return () => (b[i] === 0x6e ? literal(NULL, absent) : int())
        case 'double':
        case 'Double':
          return () => (b[i] === 0x6e ? literal(NULL, absent) : double())
        case 'boolean':
        case 'Boolean':
          return () => {
            const c = b[i]
            return c === 0x74 ? literal(TRUE, true) : c === 0x66 ? literal(FALSE, false) : literal(NULL, absent)
          }
        case 'char':
        case 'Character':
          return () => {
            if (b[i] !== 0x22) return literal(NULL, absent)
            const s = string()
            if (s.length !== 1) throw GIVE_UP
            return s
          }
        case 'String':
          return () => (b[i] === 0x22 ? string() : literal(NULL, null))
        default:
          // long and Long: JSON.parse's path does not take them either (53-bit doubles).
          return null
      }
    }
    case 'object':
      return objectReader(d)
    case 'list':
    case 'array': {
      // Placeholder first: a recursive type reaches itself through its items.
      let item: Read | null = null
      const read: Read = () => {
        if (b[i] !== 0x5b) return literal(NULL, null)
        // Reached through a recursive type whose compilation found something this path cannot read.
        if (item === null) throw GIVE_UP
        if (++depth > maxDepth) throw GIVE_UP
        i++
        skip()
        const out: unknown[] = []
        if (b[i] === 0x5d) i++
        else {
          for (;;) {
            out.push(item!())
            skip()
            const c = b[i]
            if (c === 0x2c) {
              i++
              skip()
            } else if (c === 0x5d) {
              i++
              break
            } else throw GIVE_UP
          }
        }
        depth--
        nodes -= out.length
        if (nodes < 0) throw GIVE_UP
        return out
      }
      readers.set(d, read)
      item = readerOf(elementType(d))
      return item === null ? null : read
    }
    default:
      return null
  }
}

function objectReader(d: ObjectDescriptor): Read | null {
  const n = d.fields.length
  const names = d.fields.map((f) => f.name)
  // Assigning '__proto__' would set the prototype, not a member as JSON.parse makes.
  if (names.includes('__proto__')) return null
  const keys = names.map((name) => Buffer.from(name, 'utf8'))
  // Every object starts as a copy of this one: the members in declared order with their defaults,
  // which is what JSON.parse and the check make of members that come in declared order, the
  // missing ones last. Members in another order (or twice) go to the other path.
  const template: Record<string, unknown> = {}
  d.fields.forEach((f) => (template[f.name] = primitiveDefault(f.type)))
  const fields: Read[] = []
  let ready = false
  const read: Read = () => {
    if (b[i] !== 0x7b) return literal(NULL, null)
    if (!ready) throw GIVE_UP
    if (--nodes < 0 || ++depth > maxDepth) throw GIVE_UP
    i++
    skip()
    const o = { ...template }
    if (b[i] === 0x7d) i++
    else {
      for (let k = 0; ; k++) {
        if (k === n || b[i] !== 0x22) throw GIVE_UP
        key(keys[k]!)
        skip()
        if (b[i] !== 0x3a) throw GIVE_UP
        i++
        skip()
        o[names[k]!] = fields[k]!()
        skip()
        const c = b[i]
        if (c === 0x2c) {
          i++
          skip()
        } else if (c === 0x7d) {
          i++
          break
        } else throw GIVE_UP
      }
    }
    depth--
    return o
  }
  readers.set(d, read)
  for (const f of d.fields) {
    const r = readerOf(f.type)
    if (r === null) return null
    fields.push(r)
  }
  ready = true
  return read
}

/** i at the opening quote of a member name, which must be `expected`'s bytes; i left after the closing quote. */
function key(expected: Buffer): void {
  const start = i + 1
  const len = expected.length
  for (let j = 0; j < len; j++) if (b[start + j] !== expected[j]) throw GIVE_UP
  if (b[start + len] !== 0x22) throw GIVE_UP
  i = start + len + 1
}

const NULL = [0x6e, 0x75, 0x6c, 0x6c]
const TRUE = [0x74, 0x72, 0x75, 0x65]
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65]

function literal(word: number[], value: unknown): unknown {
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) throw GIVE_UP
  i += word.length
  return value
}

/** A string without escapes or control characters, decoded from UTF-8 as the whole text would be. */
function string(): string {
  const start = ++i
  let ascii = true
  for (;;) {
    const c = b[i]
    if (c === 0x22) break
    if (c === 0x5c || c === undefined || c < 0x20) throw GIVE_UP
    if (c >= 0x80) ascii = false
    i++
  }
  const s = ascii ? text.latin1Slice(start, i) : text.utf8Slice(start, i)
  i++
  if (s.length > maxStringLength) throw GIVE_UP
  return s
}

/** An int slot: JSON integers of up to 10 digits in int's range; anything else goes to the other path. */
function int(): number {
  let neg = false
  if (b[i] === 0x2d) {
    neg = true
    i++
  }
  let c = b[i]!
  if (c === 0x30) {
    c = b[++i]!
    if (c >= 0x30 && c <= 0x39) throw GIVE_UP
    if (c === 0x2e || c === 0x65 || c === 0x45) throw GIVE_UP
    return neg ? -0 : 0
  }
  const start = i
  let v = 0
  while (c >= 0x30 && c <= 0x39) {
    v = v * 10 + (c - 0x30)
    c = b[++i]!
  }
  const digits = i - start
  if (digits === 0 || digits > 10 || c === 0x2e || c === 0x65 || c === 0x45) throw GIVE_UP
  if (neg) v = -v
  if (v < -2147483648 || v >= 2147483648) throw GIVE_UP
  return v
}

const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17]
const POW10_MORE = [1e18, 1e19, 1e20, 1e21, 1e22]

/**
 * A double slot: JSON numbers of up to 15 significant digits and a power of ten up to 22, whose
 * value is one exact division or product (Clinger's fast path), so it rounds as JSON.parse does.
 */
function double(): number {
  let neg = false
  if (b[i] === 0x2d) {
    neg = true
    i++
  }
  let m = 0
  let digits = 0
  let c = b[i]!
  if (c === 0x30) c = b[++i]!
  else {
    // Written this way round so that the end of input (undefined) fails too.
    if (!(c >= 0x31 && c <= 0x39)) throw GIVE_UP
    while (c >= 0x30 && c <= 0x39) {
      m = m * 10 + (c - 0x30)
      digits++
      c = b[++i]!
    }
  }
  let scale = 0
  if (c === 0x2e) {
    c = b[++i]!
    const fracStart = i
    while (c >= 0x30 && c <= 0x39) {
      m = m * 10 + (c - 0x30)
      c = b[++i]!
    }
    scale = i - fracStart
    if (scale === 0) throw GIVE_UP
    digits += scale
  }
  let exp = 0
  if (c === 0x65 || c === 0x45) {
    c = b[++i]!
    let expNeg = false
    if (c === 0x2b || c === 0x2d) {
      expNeg = c === 0x2d
      c = b[++i]!
    }
    const expStart = i
    while (c >= 0x30 && c <= 0x39 && i - expStart < 6) {
      exp = exp * 10 + (c - 0x30)
      c = b[++i]!
    }
    if (i === expStart) throw GIVE_UP
    if (c >= 0x30 && c <= 0x39) throw GIVE_UP
    if (expNeg) exp = -exp
  }
  const e = exp - scale
  // Leading zeros of a fraction count as digits above; they add nothing to m, so m stays exact.
  if (digits <= 15 && e >= -22 && e <= 22) {
    const v = e >= 0 ? m * pow10(e) : m / pow10(-e)
    return neg ? -v : v
  }
  // Converting the text here (Number) costs several times what JSON.parse spends on a number.
  throw GIVE_UP
}

function pow10(e: number): number {
  return e < POW10.length ? POW10[e]! : POW10_MORE[e - 18]!
}
