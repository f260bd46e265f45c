import { STAND_ASIDE, standsAside } from '../stand-aside'
import { type Descriptor, type ObjectDescriptor, type ScalarType } from '../../descriptors/descriptors'
import type { ReadLimits } from '../../../common/contract/limits'
import { JsonSyntaxError, scanNumber } from '../../../common/json/scan'
import { isCharArray, parseScalar, primitiveDefault, readLocalDate } from '../java/text'
import { parseXStreamDate } from '../java/dates'
import { jettisonNumberText, pastDoubleRange } from './jettison-text'
import { type AlphaContext, alphaTypeNameOrNull, defaultRuntime } from './alpha-node'
import {
  SKIP,
  SourceParts,
  doubleSource,
  integerSource,
  objectSource,
  runGenerated,
  stringSource,
  type CompiledReader
} from '../json-compiler'

/**
 * alpha JSON read by code generated per type, the way beta JSON is (json-compiler): for what XStream
 * and Jettison write for plain data — fields in declared order (any of them left out), a collection
 * as `[{"item": …}]`, unescaped strings, ints, longs and doubles in their plain number form (a
 * double may also be a string), booleans; Strings, chars and dates from any leaf through XStream's
 * converters. It returns exactly what the element-tree reader returns for such a document and gives
 * up (STAND_ASIDE) on anything else: strings in int, long or boolean slots, escapes, maps, Object
 * slots, attributes, members out of order, limits; then the interpreting direct reader and the tree
 * reader take the input (alpha-json-direct).
 *
 * Why a third reader: on large lists the interpreting one is slower than JSON.parse, its time going
 * into decoding each member name, a Set per object and the text of each number (docs/performance.md).
 */
const compiled = new WeakMap<AlphaContext, WeakMap<Descriptor, CompiledReader | null>>()

/** Reads one alpha JSON document of type d, or returns STAND_ASIDE. */
export function readAlphaJsonCompiled(
  bytes: Uint8Array,
  d: Descriptor,
  ctx: AlphaContext,
  limits: ReadLimits
): unknown {
  let byType = compiled.get(ctx)
  if (byType === undefined) compiled.set(ctx, (byType = new WeakMap()))
  let read = byType.get(d)
  if (read === undefined) {
    read = generate(d, ctx)
    byType.set(d, read)
  }
  return read === null ? STAND_ASIDE : runGenerated(read, bytes, limits)
}

/** Shared types are inlined at each use: the emitter stops after this many values. */
const MAX_VALUES = 2000

/** The reader of `{"<root>": element}`, or null when d holds what this path does not read. */
function generate(d: Descriptor, ctx: AlphaContext): CompiledReader | null {
  if (d.kind === 'any') return null
  const name = alphaTypeNameOrNull(defaultRuntime(d), ctx)
  const g = new Emitter(ctx)
  const key = name === null ? null : g.parts.keyTest(name)
  const body = key === null ? null : g.element(d, 'r', new Set())
  if (key === null || body === null) return null
  return g.parts.compile(`
    ${SKIP}
    if (c !== 123 || ++depth > maxDepth || --nodes < 0) throw G
    i++
    ${SKIP}
    if (!(${key.test})) throw G
    i += ${key.length}
    ${COLON}
    let r
    ${body}
    ${SKIP}
    if (c !== 125) throw G
    i++
    ${SKIP}
    if (i !== b.length) throw G
    return r`)
}

/** Whitespace, ':', whitespace. */
const COLON = `${SKIP}
  if (c !== 58) throw G
  i++
  ${SKIP}`

/** After an item or member: ',' goes on (to `more`), the closing byte leaves (to `done`). */
function next(close: number, more: string, done: string): string {
  return `${SKIP}
    if (c === 44) {
      i++
      ${SKIP}
      ${more}
    } else if (c === ${close}) {
      i++
      ${done}
    } else throw G`
}

/** Where the JSON number at i ends; -1 when there is none. */
function numberEnd(b: Uint8Array, i: number): number {
  const c = b[i]
  if (c !== 0x2d && !(c !== undefined && c >= 0x30 && c <= 0x39)) return -1
  try {
    return scanNumber(b, i)
  } catch (err) {
    if (err instanceof JsonSyntaxError) return -1
    throw err
  }
}

/**
 * A number token's text as Jettison gives it (jettisonNumberText: -0 through Long is "0"); past
 * double's range the outcome depends on where the number is (the tree reader knows): STAND_ASIDE.
 */
function numberText(token: string): string | typeof STAND_ASIDE {
  return pastDoubleRange(token) ? STAND_ASIDE : jettisonNumberText(token)
}

/** A converter whose refusal is STAND_ASIDE instead of an error: the exact path words it. */
function refusing(convert: (text: string) => unknown): (text: string) => unknown {
  return (text) => {
    try {
      return convert(text)
    } catch (err) {
      if (standsAside(err)) return STAND_ASIDE
      throw err
    }
  }
}

class Emitter {
  readonly parts = new SourceParts()
  private values = 0

  constructor(private readonly ctx: AlphaContext) {}

  /** One element's value; Jettison may wrap it in a one-item array. Whitespace skipped before it. */
  element(d: Descriptor, target: string, path: Set<Descriptor>): string | null {
    const content = this.content(d, target, path)
    if (content === null) return null
    const k = this.parts.id()
    return `let w${k} = false
      if (c === 91) {
        if (++depth > maxDepth || --nodes < 0) throw G
        i++
        ${SKIP}
        w${k} = true
      }
      ${content}
      if (w${k}) {
        ${SKIP}
        if (c !== 93) throw G
        i++
        depth--
      }`
  }

  private content(d: Descriptor, target: string, path: Set<Descriptor>): string | null {
    if (++this.values > MAX_VALUES) return null
    switch (d.kind) {
      case 'scalar':
        return this.scalar(d.type, target)
      case 'date': {
        const zone = this.ctx.zone
        return this.leaf(target, (text) => parseXStreamDate(text, zone))
      }
      case 'localDate':
        return this.leaf(target, readLocalDate)
      case 'object':
        return this.object(d, target, path)
      case 'list':
      case 'array':
        return isCharArray(d) ? null : this.items(d.item, target, path)
      default:
        // Dates, maps and Object slots: the interpreting reader knows them.
        return null
    }
  }

  /** A leaf, counted as a value: only the token XStream's converter reads to the same value by itself. */
  private scalar(type: ScalarType, target: string): string | null {
    const k = this.parts.id()
    const counted = `if (--nodes < 0) throw G\n`
    switch (type) {
      case 'int':
      case 'Integer':
        // Jettison's text of the token through XStream's Long.decode: plain decimals of up to 9 digits.
        return counted + integerSource(target, k, { maxDigits: 9, negativeZero: false, int32: false, bigint: false })
      case 'long':
      case 'Long':
        return counted + integerSource(target, k, { maxDigits: 15, negativeZero: false, int32: false, bigint: true })
      case 'double':
      case 'Double':
        // Jettison writes a double as a string when its text is not a JSON number's (1.0E-5, NaN).
        return `if (c === 34) {
            ${this.leaf(target, (text) => parseScalar(type, text, true))}
          } else {
            ${counted}${doubleSource(target, k, false)}
          }`
      case 'boolean':
      case 'Boolean':
        return `${counted}if (c === 116 && b[i + 1] === 114 && b[i + 2] === 117 && b[i + 3] === 101) {
            i += 4
            ${target} = true
          } else if (c === 102 && b[i + 1] === 97 && b[i + 2] === 108 && b[i + 3] === 115 && b[i + 4] === 101) {
            i += 5
            ${target} = false
          } else throw G`
      case 'String':
        return this.leaf(target, null)
      case 'char':
      case 'Character':
        return this.leaf(target, (text) => parseScalar(type, text, true))
    }
  }

  /**
   * Any leaf token as the text Jettison gives it (an unescaped string, a number, true or false),
   * made a value by XStream's converter `convert` (none for a String); its refusals give up.
   */
  private leaf(target: string, convert: ((text: string) => unknown) | null): string {
    const k = this.parts.id()
    const text = `t${k}`
    const converted =
      convert === null
        ? `${target} = ${text}`
        : `${target} = ${this.parts.constant(refusing(convert))}(${text})
          if (${target} === G) throw G`
    return `if (--nodes < 0) throw G
      let ${text}
      if (c === 34) {
        ${stringSource(text, k)}
      } else if (c === 116 && b[i + 1] === 114 && b[i + 2] === 117 && b[i + 3] === 101) {
        i += 4
        ${text} = 'true'
      } else if (c === 102 && b[i + 1] === 97 && b[i + 2] === 108 && b[i + 3] === 115 && b[i + 4] === 101) {
        i += 5
        ${text} = 'false'
      } else {
        const end${k} = ${this.parts.constant(numberEnd)}(b, i)
        if (end${k} < 0) throw G
        ${text} = ${this.parts.constant(numberText)}(text.latin1Slice(i, end${k}))
        if (${text} === G) throw G
        i = end${k}
      }
      ${converted}`
  }

  /**
   * `{…}`: members in declared order, any of them left out (XStream leaves out null fields); the
   * object literal has every field in declared order, as the tree reader's object does.
   */
  private object(d: ObjectDescriptor, target: string, path: Set<Descriptor>): string | null {
    if (path.has(d) || d.fields.some((f) => f.name === '__proto__')) return null
    const plain = d.fields.every((f) => !f.omit && !f.attribute && f.implicit === undefined && f.type.kind !== 'any')
    const names = d.fields.map((f) => this.ctx.naming.field(f.alias ?? f.name))
    if (!plain || new Set(names).size !== names.length) return null
    path.add(d)
    const k = this.parts.id()
    const vars = d.fields.map((_, n) => `o${k}_${n}`)
    const members: string[] = []
    for (const [n, f] of d.fields.entries()) {
      const key = this.parts.keyTest(names[n]!)
      const read = key === null ? null : this.element(defaultRuntime(f.type), vars[n]!, path)
      if (key === null || read === null) {
        path.delete(d)
        return null
      }
      members.push(`if (${key.test}) {
          i += ${key.length}
          ${COLON}
          ${read}
          ${next(125, '', `break m${k}`)}
        }`)
    }
    path.delete(d)
    const defaults = d.fields.map((f) => this.parts.constant(primitiveDefault(f.type)))
    const literal = d.fields.map((f, n) => `${JSON.stringify(f.name)}: ${vars[n]!}`).join(', ')
    const open = 'if (c !== 123 || ++depth > maxDepth || --nodes < 0) throw G'
    return `${objectSource(k, open, vars, defaults, members)}
      ${target} = {${literal}}`
  }

  /**
   * A collection's content: `""` or `{}` when empty, else `{"<item>": item or [items]}` (the name
   * repeated is read as the interpreting reader reads it: more items).
   */
  private items(item: Descriptor, target: string, path: Set<Descriptor>): string | null {
    // Collections inside collections (Jettison merges their arrays) and Object items: not here.
    if (item.kind === 'any' || item.kind === 'list' || item.kind === 'array' || item.kind === 'map') return null
    const runtime = defaultRuntime(item)
    const name = alphaTypeNameOrNull(runtime, this.ctx)
    const key = name === null ? null : this.parts.keyTest(name)
    const k = this.parts.id()
    const read = key === null ? null : this.content(runtime, `x${k}`, path)
    if (key === null || read === null) return null
    return `const a${k} = []
      if (c === 34) {
        if (b[i + 1] !== 34 || --nodes < 0) throw G
        i += 2
      } else {
        if (c !== 123 || ++depth > maxDepth || --nodes < 0) throw G
        i++
        ${SKIP}
        if (c === 125) i++
        else for (;;) {
          if (!(${key.test})) throw G
          i += ${key.length}
          ${COLON}
          let many${k} = false
          if (c === 91) {
            if (++depth > maxDepth || --nodes < 0) throw G
            i++
            ${SKIP}
            many${k} = true
          }
          if (!many${k} || c !== 93) for (;;) {
            let x${k}
            ${read}
            a${k}.push(x${k})
            if (!many${k}) break
            ${next(93, '', 'break')}
          } else i++
          if (many${k}) depth--
          ${next(125, '', 'break')}
        }
        depth--
      }
      ${target} = a${k}`
  }
}
