import {
  type Descriptor,
  type ObjectDescriptor,
  isNullable,
  typeName,
  LocalDate,
  Typed
} from '../../descriptors/descriptors'
import type { Serializer } from '../serializer'
import { requireJavaZone } from '../java/zones'
import { DEFAULT_READ_LIMITS, type ReadLimits } from '../../../common/contract/limits'
import { ValueError, rethrowAt } from '../errors'
import { javaDouble, kindOf, javaMapEntries } from '../java/text'
import { LOCAL_DATE_UNSUPPORTED, elementType, jacksonRuntimeType } from './beta-types'
import { jsonString, type JsonStringStyle } from '../json-string'
import { readBetaJsonBytes } from './beta-json-reader'
import { charArrayText, isCharArray } from '../java/text'

const JACKSON: JsonStringStyle = { escapeCloseTag: false, upperHex: true, escapeLineSeparators: false }

/** Jackson's string escaping: `"`, `\\` and control characters; `/` and non-ASCII stay raw. */
export function jacksonString(s: string): string {
  return jsonString(s, JACKSON)
}

/** Member-name prefixes of a class, escaped once: `"a":` (compact) and `"a" : ` (pretty). */
const keyCache = new WeakMap<ObjectDescriptor, { compact: string[]; pretty: string[] }>()

function keysOf(d: ObjectDescriptor): { compact: string[]; pretty: string[] } {
  let k = keyCache.get(d)
  if (k === undefined) {
    k = {
      compact: d.fields.map((f) => `${jacksonString(f.name)}:`),
      pretty: d.fields.map((f) => `${jacksonString(f.name)} : `)
    }
    keyCache.set(d, k)
  }
  return k
}

/** Writes Jackson's compact form, or its DefaultPrettyPrinter form when `indent` is not null. */
function write(value: unknown, declared: Descriptor, indent: string | null): string {
  const v = value instanceof Typed ? value.value : value
  if (v === null || v === undefined) {
    if (!isNullable(declared)) throw new ValueError(`${typeName(declared)} cannot be null`)
    return 'null'
  }
  const d = jacksonRuntimeType(value, declared)
  switch (d.kind) {
    case 'scalar':
      switch (d.type) {
        case 'int':
        case 'Integer':
          if (typeof v !== 'number' || !Number.isInteger(v))
            throw new ValueError(`expected an integer, got ${kindOf(v)}`)
          return '' + v
        case 'long':
        case 'Long':
          if (typeof v !== 'bigint' && !(typeof v === 'number' && Number.isSafeInteger(v)))
            throw new ValueError(`expected a 64-bit integer, got ${kindOf(v)}`)
          return String(v)
        case 'double':
        case 'Double':
          if (typeof v !== 'number') throw new ValueError(`expected a number, got ${kindOf(v)}`)
          return Number.isFinite(v) ? javaDouble(v) : `"${javaDouble(v)}"`
        case 'boolean':
        case 'Boolean':
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
      if (indent !== null && fields.length === 0) return '{ }'
      const keys = indent === null ? keysOf(d).compact : keysOf(d).pretty
      const inner = indent === null ? null : indent + '  '
      const sep = inner === null ? ',' : ',\n' + inner
      let out = inner === null ? '{' : '{\n' + inner
      for (let k = 0; k < fields.length; k++) {
        const f = fields[k]!
        const fv = Object.prototype.hasOwnProperty.call(record, f.name) ? record[f.name] : null
        let text: string
        try {
          text = write(fv, f.type, inner)
        } catch (err) {
          rethrowAt(err, f.name)
        }
        out += (k === 0 ? keys[k]! : sep + keys[k]!) + text
      }
      return inner === null ? out + '}' : out + '\n' + indent + '}'
    }
    case 'list':
    case 'array': {
      if (!Array.isArray(v)) throw new ValueError(`expected ${typeName(d)} (an array), got ${kindOf(v)}`)
      // Jackson writes a char[] as one String.
      if (isCharArray(d)) return jacksonString(charArrayText(v))
      // A List's items are objects in Java (List<Integer>): null where an int[] has none.
      const item = elementType(d)
      const sub = indent === null ? null : indent + '  '
      let out = ''
      for (let k = 0; k < v.length; k++) {
        let text: string
        try {
          text = write(v[k], item, sub)
        } catch (err) {
          rethrowAt(err, k)
        }
        out += k === 0 ? text : (indent === null ? ',' : ', ') + text
      }
      if (indent === null) return '[' + out + ']'
      return v.length === 0 ? '[ ]' : `[ ${out} ]`
    }
    case 'map': {
      const entries = javaMapEntries(v, d.className)
      if (indent !== null && entries.length === 0) return '{ }'
      const inner = indent === null ? null : indent + '  '
      const sep = inner === null ? ',' : ',\n' + inner
      const colon = inner === null ? ':' : ' : '
      const value = elementType(d)
      let out = inner === null ? '{' : '{\n' + inner
      for (let k = 0; k < entries.length; k++) {
        const [key, x] = entries[k]!
        let text: string
        try {
          text = write(x, value, inner)
        } catch (err) {
          rethrowAt(err, key)
        }
        out += (k === 0 ? '' : sep) + jacksonString(key) + colon + text
      }
      return inner === null ? out + '}' : out + '\n' + indent + '}'
    }
    case 'any':
    case 'void':
      throw new ValueError(`cannot write ${typeName(d)}`)
  }
}

export function writeBetaJson(value: unknown, d: Descriptor): string {
  return write(value, d, null)
}

export interface BetaJsonOptions {
  /** writerWithDefaultPrettyPrinter(): two-space indentation, ` : ` between name and value. */
  pretty?: boolean
  limits?: ReadLimits
  /** setTimeZone(TimeZone.getTimeZone(id)): the zone of a date written without an offset (UTC by default). */
  timeZone?: string
}

/** beta JSON: `new ObjectMapper()`: compact JSON, null fields written, Jackson coercions on read. */
export function createBetaJsonSerializer(options: BetaJsonOptions = {}): Serializer {
  const indent = options.pretty === true ? '' : null
  const zone = requireJavaZone(options.timeZone ?? 'UTC')
  return {
    format: 'json',
    serialize: (value, type) => write(value, type, indent),
    deserialize(bytes: Uint8Array, type: Descriptor): unknown {
      // Jackson stops after the root value and ignores what follows it.
      return readBetaJsonBytes(bytes, type, options.limits ?? DEFAULT_READ_LIMITS, zone)
    }
  }
}

export { LocalDate }
