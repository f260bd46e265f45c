import { type Descriptor, isNullable, typeName } from '../descriptors/types'
import { parseJson, type JsonNode } from '../json/parse'
import type { Serializer } from './serializer'
import { ValueError, within } from './errors'
import { javaDouble, kindOf, parseJavaInteger, parseJavaDouble } from './java-text'
import { jsonString, type JsonStringStyle } from './json-string'
import { primitiveDefault } from './alpha-node'

const JACKSON: JsonStringStyle = { escapeCloseTag: false, upperHex: true }

/** Jackson's string escaping: `"`, `\\` and control characters; `/` and non-ASCII stay raw. */
export function jacksonString (s: string): string {
  return jsonString(s, JACKSON)
}

export function writeBetaJson (value: unknown, d: Descriptor): string {
  if (value === null || value === undefined) {
    if (!isNullable(d)) throw new ValueError(`${typeName(d)} cannot be null`)
    return 'null'
  }
  switch (d.kind) {
    case 'scalar':
      switch (d.type) {
        case 'int': case 'Integer':
          if (typeof value !== 'number' || !Number.isInteger(value)) throw new ValueError(`expected an integer, got ${kindOf(value)}`)
          return String(value)
        case 'long': case 'Long':
          if (typeof value !== 'bigint' && !(typeof value === 'number' && Number.isSafeInteger(value))) throw new ValueError(`expected a 64-bit integer, got ${kindOf(value)}`)
          return String(value)
        case 'double': case 'Double':
          if (typeof value !== 'number') throw new ValueError(`expected a number, got ${kindOf(value)}`)
          return Number.isFinite(value) ? javaDouble(value) : `"${javaDouble(value)}"`
        case 'boolean': case 'Boolean':
          if (typeof value !== 'boolean') throw new ValueError(`expected a boolean, got ${kindOf(value)}`)
          return value ? 'true' : 'false'
        default:
          if (typeof value !== 'string') throw new ValueError(`expected a string, got ${kindOf(value)}`)
          return jacksonString(value)
      }
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) throw new ValueError(`expected ${d.className}, got ${kindOf(value)}`)
      const record = value as Record<string, unknown>
      const parts = d.fields.map((f) => {
        const v = Object.prototype.hasOwnProperty.call(record, f.name) ? record[f.name] : null
        return `${jacksonString(f.name)}:${within(f.name, () => writeBetaJson(v, f.type))}`
      })
      return `{${parts.join(',')}}`
    }
    case 'list':
      if (!Array.isArray(value)) throw new ValueError(`expected a list, got ${kindOf(value)}`)
      return `[${value.map((v, k) => within(k, () => writeBetaJson(v, d.item))).join(',')}]`
    case 'void':
      throw new ValueError('void has no value')
  }
}

function readScalar (node: JsonNode, d: Descriptor & { kind: 'scalar' }): unknown {
  const nullable = isNullable(d)
  if (node.t === 'null') {
    if (nullable) return null
    throw new ValueError(`${d.type} cannot be null`)
  }
  switch (d.type) {
    case 'int': case 'Integer': case 'long': case 'Long': {
      const kind = d.type === 'int' || d.type === 'Integer' ? 'int' : 'long'
      if (node.t === 'num') {
        // Jackson truncates a fraction (6.5 → 6) when reading an integral type.
        const m = /^(-?[0-9]+)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.exec(node.text)!
        if (m[3] !== undefined) return parseJavaInteger(String(Math.trunc(Number(node.text))), kind)
        return parseJavaInteger(m[1]!, kind)
      }
      if (node.t === 'str') {
        if (node.v === '') return nullable ? null : primitiveDefault(d)
        return parseJavaInteger(node.v.trim(), kind)
      }
      throw new ValueError(`expected ${d.type}, got ${jsonKind(node)}`)
    }
    case 'double': case 'Double':
      if (node.t === 'num') return Number(node.text)
      if (node.t === 'str') return node.v === '' ? (nullable ? null : 0) : parseJavaDouble(node.v.trim())
      throw new ValueError(`expected ${d.type}, got ${jsonKind(node)}`)
    case 'boolean': case 'Boolean':
      if (node.t === 'bool') return node.v
      if (node.t === 'str' && (node.v === 'true' || node.v === 'false')) return node.v === 'true'
      throw new ValueError(`expected ${d.type}, got ${jsonKind(node)}`)
    case 'char': case 'Character':
      if (node.t === 'str' && node.v.length === 1) return node.v
      throw new ValueError(`expected one character, got ${jsonKind(node)}`)
    case 'String':
      if (node.t === 'str') return node.v
      if (node.t === 'num') return node.text
      if (node.t === 'bool') return node.v ? 'true' : 'false'
      throw new ValueError(`expected String, got ${jsonKind(node)}`)
  }
}

function jsonKind (node: JsonNode): string {
  switch (node.t) {
    case 'null': return 'null'
    case 'bool': return `boolean ${node.v}`
    case 'num': return `number ${node.text}`
    case 'str': return 'a string'
    case 'arr': return 'an array'
    case 'obj': return 'an object'
  }
}

export function readBetaJson (node: JsonNode, d: Descriptor): unknown {
  switch (d.kind) {
    case 'scalar': return readScalar(node, d)
    case 'object': {
      if (node.t === 'null') return null
      if (node.t !== 'obj') throw new ValueError(`expected ${d.className} (a JSON object), got ${jsonKind(node)}`)
      const out: Record<string, unknown> = {}
      for (const f of d.fields) out[f.name] = primitiveDefault(f.type)
      for (const [key, value] of node.members) {
        const field = d.fields.find((f) => f.name === key)
        if (field === undefined) throw new ValueError(`Unrecognized field "${key}" (class ${d.className}), not marked as ignorable`)
        out[field.name] = within(field.name, () => readBetaJson(value, field.type))
      }
      return out
    }
    case 'list':
      if (node.t === 'null') return null
      if (node.t !== 'arr') throw new ValueError(`expected a list (a JSON array), got ${jsonKind(node)}`)
      return node.items.map((item, k) => within(k, () => readBetaJson(item, d.item)))
    case 'void':
      throw new ValueError('void has no value')
  }
}

/** beta JSON: `new ObjectMapper()`: compact JSON, null fields written, Jackson coercions on read. */
export function createBetaJsonSerializer (): Serializer {
  return {
    format: 'json',
    serialize: writeBetaJson,
    deserialize (bytes: Uint8Array, type: Descriptor): unknown {
      // Jackson stops after the root value and ignores what follows it.
      return readBetaJson(parseJson(bytes, { allowTrailing: true }), type)
    }
  }
}
