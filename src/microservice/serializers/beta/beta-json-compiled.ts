import { STAND_ASIDE } from '../stand-aside'
import { isNullable, type Descriptor, type ObjectDescriptor } from '../../descriptors/descriptors'
import { primitiveDefault } from '../java/text'
import { elementType } from './beta-types'
import type { ReadLimits } from '../../../common/contract/limits'
import {
  SKIP,
  SourceParts,
  doubleSource,
  integerSource,
  objectSource,
  runGenerated,
  stringSource,
  type CompiledReader,
  type IntegerRules
} from '../json-compiler'

/**
 * Beta JSON read straight from the argument's bytes into values, for the common documents only:
 * no escapes in strings, numbers that fit their slot, members in declared order. It returns exactly
 * what `JSON.parse` plus the descriptor check returns (same values, same member order, defaults
 * for missing trailing members), and gives up with STAND_ASIDE on anything else, leaving it to that
 * path and the exact reader, which word the errors.
 *
 * The reader of a type is generated once as JavaScript source: one function with the cursor in a
 * local variable, every nested object and list inlined, members matched byte by byte and objects
 * built by an object literal: faster on a large list than the same logic as closures over shared
 * state, and than JSON.parse alone (docs/performance.md). Only
 * descriptors reach the source: member names as byte comparisons, defaults by index (json-compiler).
 */

/** JSON.parse's integers in an int slot: up to 10 digits in int's range, -0 kept. */
const JSON_INT: IntegerRules = { maxDigits: 10, negativeZero: true, int32: true, bigint: false }

/** `null` at i: the value `absent` goes to `target`; otherwise `other` runs. */
function orNull(target: string, absent: string, other: string): string {
  return `if (b[i] === 110) {
    if (b[i + 1] !== 117 || b[i + 2] !== 108 || b[i + 3] !== 108) throw G
    i += 4
    ${target} = ${absent}
  } else {
    ${other}
  }`
}

const compiled = new WeakMap<Descriptor, CompiledReader | null>()

/** Reads one beta JSON document of type d, or returns STAND_ASIDE. */
export function readBetaJsonCompiled(bytes: Uint8Array, d: Descriptor, limits: ReadLimits): unknown {
  let read = compiled.get(d)
  if (read === undefined) {
    read = generate(d)
    compiled.set(d, read)
  }
  return read === null ? STAND_ASIDE : runGenerated(read, bytes, limits)
}

/**
 * Shared types are inlined at each use, so a type tree with much sharing grows fast: the emitter
 * stops after MAX_VALUES values.
 */
const MAX_VALUES = 2000

/** The reader of d, or null when d holds a type this path does not read (or refers to itself). */
function generate(d: Descriptor): CompiledReader | null {
  const g = new Emitter()
  const body = g.value(d, 'r', new Set())
  if (body === null) return null
  return g.parts.compile(`
    ${SKIP}
    let r
    ${body}
    ${SKIP}
    if (i !== b.length) throw G
    return r`)
}

class Emitter {
  readonly parts = new SourceParts()
  private values = 0

  /** Source that reads a value of type d at i into `target`, or null when this path cannot read d. */
  value(d: Descriptor, target: string, path: Set<Descriptor>): string | null {
    if (++this.values > MAX_VALUES) return null
    switch (d.kind) {
      case 'scalar': {
        const absent = this.parts.constant(isNullable(d) ? null : primitiveDefault(d))
        switch (d.type) {
          case 'int':
          case 'Integer':
            return orNull(target, absent, integerSource(target, this.parts.id(), JSON_INT))
          case 'double':
          case 'Double':
            return orNull(target, absent, doubleSource(target, this.parts.id(), true))
          case 'boolean':
          case 'Boolean':
            return `if (b[i] === 116) {
              if (b[i + 1] !== 114 || b[i + 2] !== 117 || b[i + 3] !== 101) throw G
              i += 4
              ${target} = true
            } else if (b[i] === 102) {
              if (b[i + 1] !== 97 || b[i + 2] !== 108 || b[i + 3] !== 115 || b[i + 4] !== 101) throw G
              i += 5
              ${target} = false
            } else {
              ${orNull(target, absent, 'throw G')}
            }`
          case 'char':
          case 'Character':
            return orNull(
              target,
              absent,
              `${stringSource(target, this.parts.id())}\nif (${target}.length !== 1) throw G`
            )
          case 'String':
            return orNull(target, 'null', stringSource(target, this.parts.id()))
          default:
            // long and Long: the JSON.parse path does not take them either (53-bit doubles).
            return null
        }
      }
      case 'object':
        return this.object(d, target, path)
      case 'list':
      case 'array': {
        if (path.has(d)) return null
        path.add(d)
        const k = this.parts.id()
        const item = this.value(elementType(d), `x${k}`, path)
        path.delete(d)
        if (item === null) return null
        return orNull(
          target,
          'null',
          `if (b[i] !== 91 || ++depth > maxDepth) throw G
          i++
          ${SKIP}
          const a${k} = []
          if (b[i] === 93) i++
          else for (;;) {
            let x${k}
            ${item}
            a${k}.push(x${k})
            ${SKIP}
            if (c === 44) {
              i++
              ${SKIP}
            } else if (c === 93) {
              i++
              break
            } else throw G
          }
          depth--
          nodes -= a${k}.length
          if (nodes < 0) throw G
          ${target} = a${k}`
        )
      }
      default:
        return null
    }
  }

  /**
   * Members must come in declared order (each at most once, a prefix of the declared list): then the
   * object literal, the missing ones with their defaults, has JSON.parse's member order.
   */
  private object(d: ObjectDescriptor, target: string, path: Set<Descriptor>): string | null {
    // '__proto__' in an object literal sets the prototype, not a member as JSON.parse makes.
    if (path.has(d) || d.fields.some((f) => f.name === '__proto__')) return null
    path.add(d)
    const k = this.parts.id()
    const vars = d.fields.map((_, n) => `o${k}_${n}`)
    const members: string[] = []
    for (const [n, f] of d.fields.entries()) {
      const read = this.value(f.type, vars[n]!, path)
      const key = this.key(f.name)
      if (read === null || key === null) {
        path.delete(d)
        return null
      }
      const last = n === d.fields.length - 1
      members.push(`${key}
        ${SKIP}
        if (c !== 58) throw G
        i++
        ${SKIP}
        ${read}
        ${SKIP}
        if (c === 125) {
          i++
          break m${k}
        }
        ${last ? 'throw G' : `if (c !== 44) throw G\ni++\n${SKIP}`}`)
    }
    path.delete(d)
    const defaults = d.fields.map((f) => this.parts.constant(primitiveDefault(f.type)))
    const literal = d.fields.map((f, n) => `${JSON.stringify(f.name)}: ${vars[n]!}`).join(', ')
    const open = 'if (b[i] !== 123 || --nodes < 0 || ++depth > maxDepth) throw G'
    return orNull(target, 'null', `${objectSource(k, open, vars, defaults, members)}\n${target} = {${literal}}`)
  }

  /** Matches `"name"` at i byte by byte and steps over it. */
  private key(name: string): string | null {
    const key = this.parts.keyTest(name)
    return key === null ? null : `if (!(${key.test})) throw G\ni += ${key.length}`
  }
}
