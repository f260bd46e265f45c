import { LocalDate, Typed, isNullable, type Descriptor, type ObjectDescriptor } from '../../descriptors/descriptors'
import { decodeJsonString, latin1 } from '../../../common/json/parse'
import { scanNumber, scanString, skipWhitespace } from '../../../common/json/scan'
import type { ReadLimits } from '../../../common/contract/limits'
import { readAlphaJsonCompiled } from './alpha-json-compiled'
import { STAND_ASIDE, standsAside, type StandAside } from '../stand-aside'
import { parseScalar, primitiveDefault, readLocalDate, xstreamScalarText, isCharArray } from '../java/text'
import { parseXStreamDate, xstreamDate } from '../java/dates'
import { jettisonNumberText, jettisonPrimitive, jettisonString, pastDoubleRange } from './jettison-text'
import { type AlphaContext, alphaTypeName, alphaTypeNameOrNull, defaultRuntime, fieldsByElement } from './alpha-node'

/**
 * alpha JSON (Jettison's mapped convention) read straight into values, for the shapes XStream
 * writes for plain data: classes with element fields, lists and arrays of them, scalars, dates. No
 * JSON tree and no element tree are built (together they cost many times JSON.parse on a large
 * list, much of it garbage collection).
 *
 * Anything else — attributes (`@class`, `@reference`, attribute fields), `$` text, null elements,
 * Object or map slots, implicit or omitted fields, a repeated field, an input past a limit, and
 * an error in the client's input — makes `tryReadAlphaJson` stand aside (stand-aside.ts), and the
 * caller reads the input again with the element-tree reader, which knows all of XStream's forms and
 * words every error. So what this reader accepts it reads to the very value the tree reader makes,
 * and it never has to word an error.
 */
class DirectReader {
  private i: number
  private nodes = 0

  constructor(
    private readonly b: Uint8Array,
    private readonly limits: ReadLimits,
    private readonly ctx: AlphaContext
  ) {
    // A BOM is refused, by the tree reader (which words the error).
    this.i = 0
  }

  /** `{"<root element>": content}` and nothing after it. */
  root(declared: Descriptor): unknown {
    this.open(0x7b, 1)
    const name = this.key()
    if (declared.kind === 'any' || name !== alphaTypeNameOrNull(defaultRuntime(declared), this.ctx)) throw STAND_ASIDE
    const value = this.element(declared, 1)
    this.i = skipWhitespace(this.b, this.i)
    if (this.b[this.i++] !== 0x7d) throw STAND_ASIDE
    if (skipWhitespace(this.b, this.i) !== this.b.length) throw STAND_ASIDE
    return value
  }

  /** One element's value: Jettison wraps a collection's content in `[ ]`, a one-item array is the same element. */
  private element(d: Descriptor, depth: number): unknown {
    this.i = skipWhitespace(this.b, this.i)
    if (this.b[this.i] !== 0x5b) return this.content(d, depth)
    this.open(0x5b, depth + 1)
    const value = this.content(d, depth + 1)
    this.close(0x5d)
    return value
  }

  private content(d: Descriptor, depth: number): unknown {
    switch (d.kind) {
      case 'scalar':
        return parseScalar(d.type, this.leaf(), true)
      case 'date':
        return parseXStreamDate(this.leaf(), this.ctx.zone)
      case 'localDate':
        return readLocalDate(this.leaf())
      case 'object':
        return this.object(d, depth)
      case 'list':
      case 'array':
        if (isCharArray(d)) throw STAND_ASIDE
        return this.items(d.item, depth)
      default:
        throw STAND_ASIDE
    }
  }

  /** A leaf's text: a JSON string, number or boolean as the characters it stands for. */
  private leaf(): string {
    const b = this.b
    this.i = skipWhitespace(b, this.i)
    this.count()
    const c = b[this.i]
    const start = this.i
    if (c === 0x22) {
      this.i = scanString(b, start)
      return decodeJsonString(b, start, this.i, this.limits.maxStringLength)
    }
    if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) {
      this.i = scanNumber(b, start)
      const token = latin1(b, start, this.i)
      // Whether Jettison takes a number past double's range depends on where it is: the tree reader knows.
      if (pastDoubleRange(token)) throw STAND_ASIDE
      return jettisonNumberText(token)
    }
    if (this.word('true')) return 'true'
    if (this.word('false')) return 'false'
    throw STAND_ASIDE
  }

  private object(d: ObjectDescriptor, depth: number): Record<string, unknown> {
    this.open(0x7b, depth + 1)
    const out: Record<string, unknown> = {}
    for (const f of d.fields) out[f.name] = primitiveDefault(f.type)
    if (this.closes(0x7d)) return out
    const fields = fieldsByElement(d, this.ctx.naming)
    const seen = new Set<string>()
    do {
      const f = fields.get(this.key())
      if (f === undefined || f.omit || f.implicit !== undefined || f.type.kind === 'any' || seen.has(f.name))
        throw STAND_ASIDE
      seen.add(f.name)
      out[f.name] = this.element(defaultRuntime(f.type), depth + 1)
    } while (this.next(0x7d))
    return out
  }

  /** A collection's content: `""` or `{}` when empty, else `{"<item>": item or [items]}`. */
  private items(item: Descriptor, depth: number): unknown[] {
    const out: unknown[] = []
    const b = this.b
    this.i = skipWhitespace(b, this.i)
    if (b[this.i] === 0x22 && b[this.i + 1] === 0x22) {
      this.count()
      this.i += 2
      return out
    }
    this.open(0x7b, depth + 1)
    if (this.closes(0x7d)) return out
    // Collections inside collections (Jettison merges their arrays) go to the tree reader.
    if (item.kind === 'any' || isCollection(item)) throw STAND_ASIDE
    const runtime = defaultRuntime(item)
    const name = alphaTypeNameOrNull(runtime, this.ctx)
    do {
      if (this.key() !== name) throw STAND_ASIDE
      this.i = skipWhitespace(b, this.i)
      if (b[this.i] !== 0x5b) {
        out.push(this.content(runtime, depth + 1))
        continue
      }
      // Repeated elements of the item's name.
      this.open(0x5b, depth + 2)
      if (this.closes(0x5d)) continue
      do {
        this.i = skipWhitespace(b, this.i)
        if (b[this.i] === 0x5b) throw STAND_ASIDE
        out.push(this.content(runtime, depth + 2))
      } while (this.next(0x5d))
    } while (this.next(0x7d))
    return out
  }

  // ---- syntax ----

  private count(): void {
    if (++this.nodes > this.limits.maxNodes) throw STAND_ASIDE
  }

  /** Opens an object or array at `depth` (counted as a value, as the tree parser does). */
  private open(c: number, depth: number): void {
    this.i = skipWhitespace(this.b, this.i)
    this.count()
    if (this.b[this.i] !== c || depth > this.limits.maxDepth) throw STAND_ASIDE
    this.i++
  }

  /** Whether the container closes right here (empty). */
  private closes(c: number): boolean {
    this.i = skipWhitespace(this.b, this.i)
    if (this.b[this.i] !== c) return false
    this.i++
    return true
  }

  private close(c: number): void {
    if (!this.closes(c)) throw STAND_ASIDE
  }

  /** After a member or item: true on ',', false on the closing character. */
  private next(close: number): boolean {
    this.i = skipWhitespace(this.b, this.i)
    const c = this.b[this.i++]
    if (c === 0x2c) return true
    if (c === close) return false
    throw STAND_ASIDE
  }

  /** A member name and its ':'. */
  private key(): string {
    const b = this.b
    this.i = skipWhitespace(b, this.i)
    if (b[this.i] !== 0x22) throw STAND_ASIDE
    const start = this.i
    this.i = scanString(b, start)
    const k = decodeJsonString(b, start, this.i, this.limits.maxStringLength)
    this.i = skipWhitespace(b, this.i)
    if (b[this.i++] !== 0x3a) throw STAND_ASIDE
    return k
  }

  private word(w: string): boolean {
    for (let k = 0; k < w.length; k++) if (this.b[this.i + k] !== w.charCodeAt(k)) return false
    this.i += w.length
    return true
  }
}

/** A list, array (char[] included) or map: what Jettison writes as a JSON array. */
function isCollection(d: Descriptor): boolean {
  return d.kind === 'list' || d.kind === 'array' || d.kind === 'map'
}

/** Per class and naming: its fields as JSON keys; null when a field is one the direct writer leaves to the tree. */
const plainClasses = new WeakMap<ObjectDescriptor, Map<AlphaContext['naming'], string[] | null>>()

function fieldKeys(d: ObjectDescriptor, naming: AlphaContext['naming']): string[] | null {
  let byNaming = plainClasses.get(d)
  if (byNaming === undefined) plainClasses.set(d, (byNaming = new Map()))
  let keys = byNaming.get(naming)
  if (keys === undefined) {
    const names = d.fields.map((f) => naming.field(f.alias ?? f.name))
    const plain =
      d.fields.every((f) => !f.omit && !f.attribute && f.implicit === undefined && f.type.kind !== 'any') &&
      new Set(names).size === names.length
    keys = plain ? names.map((n) => `${jettisonString(n)}:`) : null
    byNaming.set(naming, keys)
  }
  return keys
}

/**
 * alpha JSON written straight from values, for the shapes the direct reader reads: what XStream and
 * Jettison print for them is a fixed form (fields in order, null fields left out, a collection as
 * `[{"item":[…]}]`, `[""]` empty, an object without fields `""`). Anything else — a value met twice
 * (XStream writes a reference), Typed values and Object slots (class attributes), null items (Jettison
 * regroups them), maps, attribute, implicit or omitted fields, and every error — is left to the
 * element-tree writer, which knows all of it and words the errors.
 */
class DirectWriter {
  private readonly seen = new Set<object>()

  constructor(private readonly ctx: AlphaContext) {}

  root(value: unknown, declared: Descriptor): string {
    if (declared.kind === 'any' || value === null || value === undefined) throw STAND_ASIDE
    const runtime = defaultRuntime(declared)
    return `{${jettisonString(alphaTypeName(runtime, this.ctx))}:${this.content(value, runtime)}}`
  }

  /** `inArray`: one of several items, an element of a JSON array (Jettison escapes every '/' there). */
  private content(v: unknown, d: Descriptor, inArray = false): string {
    if (v instanceof Typed) throw STAND_ASIDE
    if (typeof v === 'object' && v !== null && this.seen.has(v)) throw STAND_ASIDE
    switch (d.kind) {
      case 'scalar':
        return jettisonPrimitive(xstreamScalarText(d.type, v), inArray)
      case 'date':
        if (!(v instanceof Date)) throw STAND_ASIDE
        return jettisonPrimitive(xstreamDate(v, this.ctx.zone), inArray)
      case 'localDate':
        if (!(v instanceof LocalDate)) throw STAND_ASIDE
        return jettisonPrimitive(v.iso, inArray)
      case 'object':
        return this.object(v, d)
      case 'list':
      case 'array':
        if (isCharArray(d)) throw STAND_ASIDE
        return this.items(v, d.item)
      default:
        throw STAND_ASIDE
    }
  }

  private object(v: unknown, d: ObjectDescriptor): string {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Date || v instanceof LocalDate)
      throw STAND_ASIDE
    const keys = fieldKeys(d, this.ctx.naming)
    if (keys === null) throw STAND_ASIDE
    this.seen.add(v)
    const record = v as Record<string, unknown>
    let out = ''
    for (let k = 0; k < keys.length; k++) {
      const f = d.fields[k]!
      const fv = Object.prototype.hasOwnProperty.call(record, f.name) ? record[f.name] : null
      if (fv === null || fv === undefined) {
        if (!isNullable(f.type)) throw STAND_ASIDE
        continue
      }
      out += `${out === '' ? '' : ','}${keys[k]!}${this.content(fv, defaultRuntime(f.type))}`
    }
    // An element without children prints as "".
    return out === '' ? '""' : `{${out}}`
  }

  private items(v: unknown, item: Descriptor): string {
    if (!Array.isArray(v)) throw STAND_ASIDE
    this.seen.add(v)
    if (v.length === 0) return '[""]'
    if (item.kind === 'any' || isCollection(item)) throw STAND_ASIDE
    const runtime = defaultRuntime(item)
    const parts = new Array<string>(v.length)
    for (let k = 0; k < v.length; k++) {
      const x: unknown = v[k]
      if (x === null || x === undefined) throw STAND_ASIDE
      parts[k] = this.content(x, runtime, v.length > 1)
    }
    const name = jettisonString(alphaTypeName(runtime, this.ctx))
    return `[{${name}:${parts.length === 1 ? parts[0]! : `[${parts.join(',')}]`}}]`
  }
}

/** The text, or STAND_ASIDE when the element-tree writer must write this value (see DirectWriter). */
export function tryWriteAlphaJson(value: unknown, declared: Descriptor, ctx: AlphaContext): string | StandAside {
  try {
    return new DirectWriter(ctx).root(value, declared)
  } catch (err) {
    if (standsAside(err)) return STAND_ASIDE
    throw err
  }
}

/** The value, or STAND_ASIDE when the element-tree reader must read this input (see DirectReader). */
export function tryReadAlphaJson(b: Uint8Array, declared: Descriptor, ctx: AlphaContext, limits: ReadLimits): unknown {
  const generated = readAlphaJsonCompiled(b, declared, ctx, limits)
  return generated !== STAND_ASIDE ? generated : readAlphaJsonInterpreted(b, declared, ctx, limits)
}

/** The interpreting direct reader alone (DirectReader): the value, or STAND_ASIDE. */
export function readAlphaJsonInterpreted(
  b: Uint8Array,
  declared: Descriptor,
  ctx: AlphaContext,
  limits: ReadLimits
): unknown {
  try {
    return new DirectReader(b, limits, ctx).root(declared)
  } catch (err) {
    if (standsAside(err)) return STAND_ASIDE
    throw err
  }
}
