import type { Descriptor } from '../descriptors/types'
import { parseXml, type XmlElement } from '../xml/tree'
import type { Serializer } from './serializer'
import { ValueError } from './errors'
import { type AliasMap, type AlphaNaming, type AlphaNode, toAlphaNode, fromAlphaNode, alphaTypeName, checkRoot } from './alpha-node'

/** XStream's XML name coding: `_` → `__`, `$` → `_-`. */
export const XML_NAMING: AlphaNaming = {
  field: (name) => name.replace(/_/g, '__').replace(/\$/g, '_-'),
  className: (name) => name.replace(/_/g, '__').replace(/\$/g, '_-')
}

/** XStream's PrettyPrintWriter escaping. */
export function escapeAlphaXml (s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[&<>"'\r\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, (c) => {
    switch (c) {
      case '&': return '&amp;'
      case '<': return '&lt;'
      case '>': return '&gt;'
      case '"': return '&quot;'
      case "'": return '&apos;'
      default: return `&#x${c.charCodeAt(0).toString(16)};`
    }
  })
}

function render (node: AlphaNode, indent: string, out: string[]): void {
  if (node.children.length > 0) {
    out.push(`${indent}<${node.name}>`)
    const inner = indent + '  '
    for (const c of node.children) render(c, inner, out)
    out.push(`${indent}</${node.name}>`)
  } else if (node.text !== null) {
    out.push(`${indent}<${node.name}>${escapeAlphaXml(node.text)}</${node.name}>`)
  } else {
    out.push(`${indent}<${node.name}/>`)
  }
}

export function renderAlphaXml (node: AlphaNode): string {
  const lines: string[] = []
  render(node, '', lines)
  return lines.join('\n')
}

function fromElement (el: XmlElement): AlphaNode {
  return {
    name: el.name,
    text: el.children.length === 0 ? el.text : null,
    children: el.children.map(fromElement),
    collection: false
  }
}

/** alpha XML: `new XStream()` (2-space indented XML, no declaration), with the given aliases. */
export function createAlphaXmlSerializer (aliases: AliasMap = new Map()): Serializer {
  return {
    format: 'xml',
    serialize (value: unknown, type: Descriptor): string {
      return renderAlphaXml(toAlphaNode(value, type, alphaTypeName(type, aliases, XML_NAMING), aliases, XML_NAMING))
    },
    deserialize (bytes: Uint8Array, type: Descriptor): unknown {
      const root = fromElement(parseXml(bytes))
      checkRoot(root, type, aliases, XML_NAMING)
      if (root.children.length === 0 && root.text !== null && type.kind === 'scalar' && root.text !== root.text.trim()) {
        throw new ValueError(`'${root.text}' is not a valid ${type.type}`)
      }
      return fromAlphaNode(root, type, aliases, XML_NAMING, true)
    }
  }
}
