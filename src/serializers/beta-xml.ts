import { type Descriptor, isNullable, simpleName, typeName } from '../descriptors/types'
import { parseXml, type XmlElement } from '../xml/tree'
import type { Serializer } from './serializer'
import { ValueError, within } from './errors'
import { kindOf, parseScalar, scalarText } from './java-text'
import { primitiveDefault } from './alpha-node'

/** Woodstox escaping of text: `&`, `<`, `>` only in `]]>`, CR as a character reference. */
export function escapeBetaXml (s: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(s)) throw new ValueError('the string holds a character XML 1.0 cannot represent')
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/]]>/g, ']]&gt;').replace(/\r/g, '&#xd;')
}

const ROOT_SCALAR_NAMES: Record<string, string> = {
  int: 'Integer', Integer: 'Integer', long: 'Long', Long: 'Long', double: 'Double', Double: 'Double',
  boolean: 'Boolean', Boolean: 'Boolean', char: 'Character', Character: 'Character', String: 'String'
}

export function betaRootName (d: Descriptor): string {
  switch (d.kind) {
    case 'scalar': return ROOT_SCALAR_NAMES[d.type]!
    case 'object': return simpleName(d.className)
    case 'list': return d.impl
    case 'void': return 'void'
  }
}

function write (value: unknown, d: Descriptor, name: string, out: string[]): void {
  if (value === null || value === undefined) {
    if (!isNullable(d)) throw new ValueError(`${typeName(d)} cannot be null`)
    out.push(`<${name}/>`)
    return
  }
  switch (d.kind) {
    case 'scalar':
      out.push(`<${name}>${escapeBetaXml(scalarText(d.type, value))}</${name}>`)
      return
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) throw new ValueError(`expected ${d.className}, got ${kindOf(value)}`)
      const record = value as Record<string, unknown>
      out.push(`<${name}>`)
      const before = out.length
      for (const f of d.fields) {
        const v = Object.prototype.hasOwnProperty.call(record, f.name) ? record[f.name] : null
        // A null List property is left out; other nulls are written as an empty element.
        if ((v === null || v === undefined) && f.type.kind === 'list') continue
        within(f.name, () => {
          if (f.type.kind === 'list') writeList(v, f.type.item, f.name, f.name, out)
          else write(v, f.type, f.name, out)
        })
      }
      if (out.length === before) out[before - 1] = `<${name}/>`
      else out.push(`</${name}>`)
      return
    }
    case 'list':
      writeList(value, d.item, name, 'item', out)
      return
    case 'void':
      throw new ValueError('void has no value')
  }
}

function writeList (value: unknown, item: Descriptor, wrapper: string, itemName: string, out: string[]): void {
  if (!Array.isArray(value)) throw new ValueError(`expected a list, got ${kindOf(value)}`)
  if (value.length === 0) { out.push(`<${wrapper}/>`); return }
  out.push(`<${wrapper}>`)
  value.forEach((v, k) => within(k, () => write(v, item, itemName, out)))
  out.push(`</${wrapper}>`)
}

function read (el: XmlElement, d: Descriptor, isRoot: boolean): unknown {
  switch (d.kind) {
    case 'scalar': {
      if (el.children.length > 0) throw new ValueError(`expected ${d.type}, got an element with children`)
      if (d.type === 'String' || d.type === 'Character' || d.type === 'char') return parseScalar(d.type, el.text)
      const text = el.text.trim()
      if (text === '') return isNullable(d) ? null : primitiveDefault(d)
      return parseScalar(d.type, text)
    }
    case 'object': {
      if (el.children.length === 0 && el.attributes.length === 0 && el.text.trim() === '' && !isRoot) return null
      const out: Record<string, unknown> = {}
      for (const f of d.fields) out[f.name] = primitiveDefault(f.type)
      // Jackson's XML module binds attributes like elements.
      const members: Array<[string, XmlElement]> = el.attributes.map(([n, v]) => [n, { name: n, attributes: [], children: [], text: v }])
      for (const c of el.children) members.push([c.name, c])
      for (const [name, child] of members) {
        const field = d.fields.find((f) => f.name === name)
        if (field === undefined) throw new ValueError(`Unrecognized field "${name}" (class ${d.className}), not marked as ignorable`)
        out[field.name] = within(field.name, () => read(child, field.type, false))
      }
      return out
    }
    case 'list':
      // Root lists hold <item> elements; a List property wraps items named like the property.
      return el.children.map((c, k) => within(k, () => read(c, d.item, false)))
    case 'void':
      throw new ValueError('void has no value')
  }
}

/** beta XML: `new XmlMapper()` with Woodstox: compact XML, root named by the simple class name. */
export function createBetaXmlSerializer (): Serializer {
  return {
    format: 'xml',
    serialize (value: unknown, type: Descriptor): string {
      const out: string[] = []
      if (value === null || value === undefined) return '<null/>'
      write(value, type, betaRootName(type), out)
      return out.join('')
    },
    deserialize (bytes: Uint8Array, type: Descriptor): unknown {
      const root = parseXml(bytes)
      if (root.name === 'null' && root.children.length === 0 && isNullable(type)) return null
      return read(root, type, true)
    }
  }
}
