import { type Descriptor, type ObjectDescriptor, isNullable, typeName, LocalDate, Typed } from '../descriptors/types'
import type { Serializer } from './serializer'
import { DEFAULT_READ_LIMITS, type ReadLimits } from './limits'
import { ValueError } from './errors'
import { javaDouble, kindOf } from './java-text'
import { LOCAL_DATE_UNSUPPORTED, jacksonRuntimeType, orderedEntries } from './beta-common'
import { jsonString, type JsonStringStyle } from './json-string'
import { readBetaJsonBytes } from './beta-json-reader'

const JACKSON: JsonStringStyle = { escapeCloseTag: false, upperHex: true }

/** Jackson's string escaping: `"`, `\\` and control characters; `/` and non-ASCII stay raw. */
export function jacksonString (s: string): string {
  return jsonString(s, JACKSON)
}

/** Member-name prefixes of a class, escaped once: `"a":` (compact) and `"a" : ` (pretty). */
const keyCache = new WeakMap<ObjectDescriptor, { compact: string[], pretty: string[] }>()

function keysOf (d: ObjectDescriptor): { compact: string[], pretty: string[] } {
  let k = keyCache.get(d)
  if (k === undefined) {
    k = { compact: d.fields.map((f) => `${jacksonString(f.name)}:`), pretty: d.fields.map((f) => `${jacksonString(f.name)} : `) }
    keyCache.set(d, k)
  }
  return k
}

/** Rethrows a ValueError with `segment` in front of its path. No closure per value on the way down. */
function at (err: unknown, segment: string | number): never {
  throw err instanceof ValueError ? err.at(segment) : err
}

/** Writes Jackson's compact form, or its DefaultPrettyPrinter form when `indent` is not null. */
function write (value: unknown, declared: Descriptor, indent: string | null): string {
  const v = value instanceof Typed ? value.value : value
  if (v === null || v === undefined) {
    if (!isNullable(declared)) throw new ValueError(`${typeName(declared)} cannot be null`)
    return 'null'
  }
  const d = declared.kind === 'any' || value instanceof Typed ? jacksonRuntimeType(value, declared) : declared
  switch (d.kind) {
    case 'scalar':
      switch (d.type) {
        case 'int': case 'Integer':
          if (typeof v !== 'number' || !Number.isInteger(v)) throw new ValueError(`expected an integer, got ${kindOf(v)}`)
          return '' + v
        case 'long': case 'Long':
          if (typeof v !== 'bigint' && !(typeof v === 'number' && Number.isSafeInteger(v))) throw new ValueError(`expected a 64-bit integer, got ${kindOf(v)}`)
          return String(v)
        case 'double': case 'Double':
          if (typeof v !== 'number') throw new ValueError(`expected a number, got ${kindOf(v)}`)
          return Number.isFinite(v) ? javaDouble(v) : `"${javaDouble(v)}"`
        case 'boolean': case 'Boolean':
          if (typeof v !== 'boolean') throw new ValueError(`expected a boolean, got ${kindOf(v)}`)
          return v ? 'true' : 'false'
        default:
          if (typeof v !== 'string') throw new ValueError(`expected a string, got ${kindOf(v)}`)
          return jacksonString(v)
      }
    case 'date':
      if (!(v instanceof Date)) throw new ValueError(`expected a Date, got ${kindOf(v)}`)
      return String(v.getTime())
    case 'localDate':
      throw new ValueError(LOCAL_DATE_UNSUPPORTED)
    case 'object': {
      if (typeof v !== 'object' || Array.isArray(v)) throw new ValueError(`expected ${d.className}, got ${kindOf(v)}`)
      const record = v as Record<string, unknown>
      const fields = d.fields
      const keys = keysOf(d)
      if (indent === null) {
        let out = '{'
        for (let k = 0; k < fields.length; k++) {
          const f = fields[k]!
          const fv = Object.prototype.hasOwnProperty.call(record, f.name) ? record[f.name] : null
          let text: string
          try { text = write(fv, f.type, null) } catch (err) { at(err, f.name) }
          out += (k === 0 ? keys.compact[k]! : ',' + keys.compact[k]!) + text
        }
        return out + '}'
      }
      if (fields.length === 0) return '{ }'
      const inner = indent + '  '
      let out = '{\n'
      for (let k = 0; k < fields.length; k++) {
        const f = fields[k]!
        const fv = Object.prototype.hasOwnProperty.call(record, f.name) ? record[f.name] : null
        let text: string
        try { text = write(fv, f.type, inner) } catch (err) { at(err, f.name) }
        out += (k === 0 ? '' : ',\n') + inner + keys.pretty[k]! + text
      }
      return out + '\n' + indent + '}'
    }
    case 'list': case 'array': {
      if (!Array.isArray(v)) throw new ValueError(`expected ${typeName(d)} (an array), got ${kindOf(v)}`)
      const item = d.item
      const sub = indent === null ? null : indent + '  '
      let out = ''
      for (let k = 0; k < v.length; k++) {
        let text: string
        try { text = write(v[k], item, sub) } catch (err) { at(err, k) }
        out += k === 0 ? text : (indent === null ? ',' : ', ') + text
      }
      if (indent === null) return '[' + out + ']'
      return v.length === 0 ? '[ ]' : `[ ${out} ]`
    }
    case 'map': {
      const entries = orderedEntries(v, d.className)
      if (indent === null) {
        let out = '{'
        for (let k = 0; k < entries.length; k++) {
          const [key, x] = entries[k]!
          let text: string
          try { text = write(x, d.value, null) } catch (err) { at(err, key) }
          out += (k === 0 ? '' : ',') + jacksonString(key) + ':' + text
        }
        return out + '}'
      }
      if (entries.length === 0) return '{ }'
      const inner = indent + '  '
      let out = '{\n'
      for (let k = 0; k < entries.length; k++) {
        const [key, x] = entries[k]!
        let text: string
        try { text = write(x, d.value, inner) } catch (err) { at(err, key) }
        out += (k === 0 ? '' : ',\n') + inner + jacksonString(key) + ' : ' + text
      }
      return out + '\n' + indent + '}'
    }
    case 'any': case 'void':
      throw new ValueError(`cannot write ${typeName(d)}`)
  }
}

export function writeBetaJson (value: unknown, d: Descriptor): string {
  return write(value, d, null)
}

export interface BetaJsonOptions {
  /** writerWithDefaultPrettyPrinter(): two-space indentation, ` : ` between name and value. */
  pretty?: boolean
  limits?: ReadLimits
}

/** beta JSON: `new ObjectMapper()`: compact JSON, null fields written, Jackson coercions on read. */
export function createBetaJsonSerializer (options: BetaJsonOptions = {}): Serializer {
  const indent = options.pretty === true ? '' : null
  return {
    format: 'json',
    serialize: (value, type) => write(value, type, indent),
    deserialize (bytes: Uint8Array, type: Descriptor): unknown {
      // Jackson stops after the root value and ignores what follows it.
      return readBetaJsonBytes(bytes, type, options.limits ?? DEFAULT_READ_LIMITS)
    }
  }
}

export { LocalDate, orderedEntries }
