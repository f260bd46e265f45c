import type { Descriptor } from '../../descriptors/descriptors'
import { completeRoot, parseXmlPrefix, type XmlElement } from '../../../common/xml/tree'
import { isXml10NameUnit } from '../../../common/xml/woodstox-names'
import type { Serializer } from '../serializer'
import { JAVA17_UNDEFINED_BMP } from '../java/undefined'
import { requireJavaZone } from '../java/zones'
import { DEFAULT_READ_LIMITS, type ReadLimits } from '../../../common/contract/limits'
import {
  type AliasMap,
  type AlphaContext,
  type AlphaNaming,
  type AlphaNode,
  toAlphaNode,
  fromAlphaNode
} from './alpha-node'

const PLAIN_NAME = /^[A-Za-z:][A-Za-z0-9:.-]*$/

/**
 * XStream's XmlFriendlyNameCoder, one UTF-16 unit at a time: `$` → `_-`, `_` → `__`, and a unit that
 * may not stand there in an XML 1.0 (4th edition) name (a surrogate, or a mark or digit first)
 * → `_.` and its four hex digits (ä stays, ¢ is `_.00a2`, 𝒜 `_.d835_.dc9c`).
 */
export function xstreamName(name: string): string {
  if (PLAIN_NAME.test(name)) return name
  let out = ''
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i)
    if (c === 0x24) out += '_-'
    else if (c === 0x5f) out += '__'
    else if (c === 0x3a || isXml10NameUnit(c, i === 0)) out += name[i]
    else out += `_.${c.toString(16).padStart(4, '0')}`
  }
  return out
}

/** XStream's XML name coding (xstreamName) for fields and classes. */
export const XML_NAMING: AlphaNaming = { field: xstreamName, className: xstreamName }

/**
 * XStream's PrettyPrintWriter escaping (XML_QUIRKS, the default mode): the five predefined entities,
 * CR, and every character Java calls an ISO control (U+0000-U+001F, U+007F-U+009F) or leaves undefined
 * as a lower-case hex reference; TAB and LF stay raw in text but not in attribute values.
 */
export function escapeAlphaXml(s: string, attribute = false): string {
  return s.replace(attribute ? ATTRIBUTE_SPECIAL : TEXT_SPECIAL, (c) => {
    switch (c) {
      case '&':
        return '&amp;'
      case '<':
        return '&lt;'
      case '>':
        return '&gt;'
      case '"':
        return '&quot;'
      case "'":
        return '&apos;'
      default:
        return `&#x${c.charCodeAt(0).toString(16)};`
    }
  })
}

// Character.isDefined(char) is false for unassigned code points of the BMP (surrogates count as
// defined: a supplementary character is written raw, one UTF-16 unit at a time), so only the BMP's
// unassigned code points, as Java 17 knows them, become references.
const TEXT_SPECIAL = new RegExp(
  `[&<>"'\\r\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f${JAVA17_UNDEFINED_BMP}]`,
  'g'
)
const ATTRIBUTE_SPECIAL = new RegExp(
  `[&<>"'\\r\\t\\n\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f${JAVA17_UNDEFINED_BMP}]`,
  'g'
)

function startTag(node: AlphaNode): string {
  let tag = `<${node.name}`
  for (const [k, v] of node.attrs) tag += ` ${k}="${escapeAlphaXml(v, true)}"`
  return tag
}

function render(node: AlphaNode, indent: string, out: string[]): void {
  const open = startTag(node)
  if (node.children.length > 0) {
    out.push(`${indent}${open}>`)
    const inner = indent + '  '
    for (const c of node.children) render(c, inner, out)
    out.push(`${indent}</${node.name}>`)
  } else if (node.text !== null) {
    out.push(`${indent}${open}>${escapeAlphaXml(node.text)}</${node.name}>`)
  } else {
    out.push(`${indent}${open}/>`)
  }
}

/** XStream's PrettyPrintWriter: two spaces per level, LF between lines, no declaration, no final newline. */
export function renderAlphaXml(node: AlphaNode): string {
  const lines: string[] = []
  render(node, '', lines)
  return lines.join('\n')
}

function fromElement(el: XmlElement): AlphaNode {
  return {
    name: el.name,
    attrs: el.attributes,
    text: el.children.length === 0 ? el.text : null,
    children: el.children.map(fromElement),
    collection: false
  }
}

/**
 * alpha XML: `new XStream()` (2-space indented XML, no declaration), with the given aliases; dates in
 * `timeZone` (a Java time-zone ID, as `new DateConverter(TimeZone.getTimeZone(id))` registered).
 */
export function createAlphaXmlSerializer(
  aliases: AliasMap = new Map(),
  limits: ReadLimits = DEFAULT_READ_LIMITS,
  timeZone = 'UTC'
): Serializer {
  const ctx: AlphaContext = { aliases, naming: XML_NAMING, zone: requireJavaZone(timeZone) }
  return {
    format: 'xml',
    serialize(value: unknown, type: Descriptor): string {
      return renderAlphaXml(toAlphaNode(value, type, ctx))
    },
    deserialize(bytes: Uint8Array, type: Descriptor): unknown {
      return fromAlphaNode(fromElement(completeRoot(parseXmlPrefix(bytes, limits, false, ['1.0']))), type, ctx)
    }
  }
}
