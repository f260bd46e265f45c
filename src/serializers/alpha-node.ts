import { type Descriptor, type ObjectDescriptor, isNullable, typeName } from '../descriptors/types'
import { ValueError, within } from './errors'
import { kindOf, parseScalar, scalarText } from './java-text'

/**
 * The XStream element model the alpha family writes and reads. XStream produces a tree of
 * elements; the XML driver prints it indented, the Jettison "mapped" driver prints it as JSON.
 */
export interface AlphaNode {
  name: string
  /** Character content; null when the element has none (printed as `<x/>`). */
  text: string | null
  children: AlphaNode[]
  /** Collections and arrays: Jettison wraps their content in `[ ]`. */
  collection: boolean
}

export interface AlphaNaming {
  /** Element name of a field: XML codes `_` and `$`, JSON does not. */
  field (name: string): string
  /** Element name of a class without an alias. */
  className (name: string): string
}

/** Type aliases registered on an alpha serializer: class name → alias (XStream `alias`). */
export type AliasMap = ReadonlyMap<string, string>

const SCALAR_NAMES: Record<string, string> = {
  int: 'int', Integer: 'int', long: 'long', Long: 'long', double: 'double', Double: 'double',
  boolean: 'boolean', Boolean: 'boolean', char: 'char', Character: 'char', String: 'string'
}

/** The element name XStream gives a value of this declared type. */
export function alphaTypeName (d: Descriptor, aliases: AliasMap, naming: AlphaNaming): string {
  switch (d.kind) {
    case 'scalar': return SCALAR_NAMES[d.type]!
    case 'object': return aliases.get(d.className) ?? d.alias ?? naming.className(d.className)
    case 'list': return d.impl === 'LinkedList' ? 'linked-list' : 'list'
    case 'void': return 'void'
  }
}

export function toAlphaNode (value: unknown, d: Descriptor, name: string, aliases: AliasMap, naming: AlphaNaming): AlphaNode {
  if (value === null || value === undefined) {
    if (!isNullable(d)) throw new ValueError(`${typeName(d)} cannot be null`)
    return { name: 'null', text: null, children: [], collection: false }
  }
  switch (d.kind) {
    case 'scalar':
      return { name, text: scalarText(d.type, value), children: [], collection: false }
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) throw new ValueError(`expected ${d.className}, got ${kindOf(value)}`)
      const children: AlphaNode[] = []
      const record = value as Record<string, unknown>
      for (const f of d.fields) {
        const v = Object.prototype.hasOwnProperty.call(record, f.name) ? record[f.name] : null
        // XStream leaves null fields out entirely.
        if (v === null || v === undefined) {
          if (!isNullable(f.type)) throw new ValueError(`${typeName(f.type)} cannot be null`, `/${f.name}`)
          continue
        }
        children.push(within(f.name, () => toAlphaNode(v, f.type, naming.field(f.name), aliases, naming)))
      }
      return { name, text: null, children, collection: false }
    }
    case 'list': {
      if (!Array.isArray(value)) throw new ValueError(`expected a list, got ${kindOf(value)}`)
      const itemName = alphaTypeName(d.item, aliases, naming)
      const children = value.map((v, k) => within(k, () => toAlphaNode(v, d.item, itemName, aliases, naming)))
      return { name, text: null, children, collection: true }
    }
    case 'void':
      throw new ValueError('void has no value')
  }
}

/** Reads a value of type d from a node; only the declared type can be built, whatever names the client sends. */
export function fromAlphaNode (node: AlphaNode, d: Descriptor, aliases: AliasMap, naming: AlphaNaming, decodeInts: boolean): unknown {
  if (node.name === 'null' && node.children.length === 0) {
    if (!isNullable(d)) throw new ValueError(`${typeName(d)} cannot be null`)
    return null
  }
  switch (d.kind) {
    case 'scalar':
      if (node.children.length > 0) throw new ValueError(`expected ${d.type}, got an element with children`)
      return parseScalar(d.type, node.text ?? '', decodeInts)
    case 'object':
      return readObject(node, d, aliases, naming, decodeInts)
    case 'list': {
      const itemName = alphaTypeName(d.item, aliases, naming)
      return node.children.map((child, k) => within(k, () => {
        if (child.name !== itemName && child.name !== 'null') throw new ValueError(`expected <${itemName}>, got <${child.name}>`)
        return fromAlphaNode(child, d.item, aliases, naming, decodeInts)
      }))
    }
    case 'void':
      throw new ValueError('void has no value')
  }
}

function readObject (node: AlphaNode, d: ObjectDescriptor, aliases: AliasMap, naming: AlphaNaming, decodeInts: boolean): Record<string, unknown> {
  if (node.text !== null && node.text.trim() !== '') throw new ValueError(`expected ${d.className}, got text`)
  const out: Record<string, unknown> = {}
  for (const f of d.fields) out[f.name] = primitiveDefault(f.type)
  const seen = new Set<string>()
  for (const child of node.children) {
    const field = d.fields.find((f) => naming.field(f.name) === child.name)
    if (field === undefined) throw new ValueError(`${d.className} has no field '${child.name}'`)
    if (seen.has(field.name)) throw new ValueError(`field '${field.name}' given twice`)
    seen.add(field.name)
    out[field.name] = within(field.name, () => fromAlphaNode(child, field.type, aliases, naming, decodeInts))
  }
  return out
}

/** Java's default of a field left out: 0 / false for primitives, null otherwise. */
export function primitiveDefault (d: Descriptor): unknown {
  if (d.kind !== 'scalar') return null
  switch (d.type) {
    case 'int': case 'double': return 0
    case 'long': return 0n
    case 'boolean': return false
    case 'char': return '\u0000'
    default: return null
  }
}

/** Checks the root element names the declared type. */
export function checkRoot (node: AlphaNode, d: Descriptor, aliases: AliasMap, naming: AlphaNaming): void {
  const expected = alphaTypeName(d, aliases, naming)
  if (node.name !== expected && node.name !== 'null') throw new ValueError(`expected <${expected}> (${typeName(d)}), got <${node.name}>`)
}
