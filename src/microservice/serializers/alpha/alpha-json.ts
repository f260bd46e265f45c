import type { Descriptor } from '../../descriptors/descriptors'
import { parseJson, type JsonNode } from '../../../common/json/parse'
import type { Serializer } from '../serializer'
import { DEFAULT_READ_LIMITS, type ReadLimits } from '../../../common/contract/limits'
import { ValueError } from '../errors'
import { requireJavaZone } from '../java/zones'
import { tryReadAlphaJson, tryWriteAlphaJson } from './alpha-json-direct'
import { STAND_ASIDE } from '../stand-aside'
import { jettisonNumberText, jettisonPrimitive, jettisonString } from './jettison-text'
import { javaTrim } from '../java/integers'
import {
  type AliasMap,
  type AlphaContext,
  type AlphaNaming,
  type AlphaNode,
  toAlphaNode,
  fromAlphaNode
} from './alpha-node'

/** Jettison "mapped" JSON keeps names as they are: no XML name coding. */
export const JSON_NAMING: AlphaNaming = { field: (n) => n, className: (n) => n }

/** `inArray`: the node is one of several of its name, an element of a JSON array. */
function content(node: AlphaNode, inArray = false): string {
  // A collection's content is wrapped in [ ]; an empty one is [""].
  if (node.collection) return `[${collectionItem(node)}]`
  if (node.children.length > 0 || node.attrs.length > 0) return members(node, true)
  return node.text === null ? '""' : jettisonPrimitive(node.text, inArray)
}

/** What a collection puts inside its [ ]: its members, its text (a char[]), or "" when empty. */
function collectionItem(node: AlphaNode): string {
  if (node.children.length > 0 || node.attrs.length > 0) return members(node, false)
  return node.text === null || node.text === '' ? '""' : jettisonPrimitive(node.text, true)
}

/**
 * An element with attributes or children as a JSON object: attributes first ("@name", their values
 * typed like leaf text), then "$" for text beside attributes (always a string), then the children
 * grouped by name in first-seen order, a repeated name becoming an array.
 */
function members(node: AlphaNode, withText: boolean): string {
  const parts: string[] = []
  for (const [k, v] of node.attrs) parts.push(`${jettisonString('@' + k)}:${jettisonPrimitive(v)}`)
  // Jettison 1.5.3 (JSONPropertyObject.addText) trims text beside attributes with String.trim and
  // leaves "$" out when nothing is left: a String " a " in an Object field is {"@class":"string","$":"a"}.
  const text = withText && node.children.length === 0 && node.text !== null ? javaTrim(node.text) : ''
  if (text !== '') parts.push(`"$":${jettisonString(text)}`)
  const byName = new Map<string, AlphaNode[]>()
  for (const c of node.children) {
    const list = byName.get(c.name)
    if (list === undefined) byName.set(c.name, [c])
    else list.push(c)
  }
  for (const [name, nodes] of byName) {
    // Repeated collections share one array: Jettison appends each one's content to it.
    const many = nodes.map((n) => (n.collection ? collectionItem(n) : content(n, true)))
    parts.push(`${jettisonString(name)}:${nodes.length === 1 ? content(nodes[0]!) : `[${many.join(',')}]`}`)
  }
  return `{${parts.join(',')}}`
}

export function renderAlphaJson(node: AlphaNode): string {
  return `{${jettisonString(node.name)}:${content(node)}}`
}

/** Reads mapped JSON back into elements: an array value means repeated elements of that name. */
function toNodes(name: string, v: JsonNode, out: AlphaNode[]): void {
  if (v.t === 'arr') {
    for (const item of v.items) out.push(toNode(name, item, true))
    return
  }
  out.push(toNode(name, v))
}

function leafText(v: JsonNode, inArray = false): string | null {
  switch (v.t) {
    case 'bool':
      return v.v ? 'true' : 'false'
    case 'num':
      return jettisonNumberText(v.text, inArray)
    case 'str':
      return v.v
    default:
      return null
  }
}

function toNode(name: string, v: JsonNode, inArray = false): AlphaNode {
  if (v.t === 'arr') throw new ValueError('nested arrays are not accepted here')
  if (v.t !== 'obj') return { name, attrs: [], text: leafText(v, inArray), children: [], collection: false }
  const children: AlphaNode[] = []
  const attrs: Array<[string, string]> = []
  let text: string | null = null
  for (const [key, value] of v.members) {
    if (key === '$') text = leafText(value)
    else if (key.startsWith('@')) {
      // Jettison gives a JSON null attribute the text "null" (a Boolean reads it as false).
      const a = value.t === 'null' ? 'null' : leafText(value)
      if (a === null) throw new ValueError(`attribute '${key}' must have a scalar value`)
      attrs.push([key.slice(1), a])
    } else toNodes(key, value, children)
  }
  return { name, attrs, text, children, collection: false }
}

/** alpha JSON: `new XStream(new JettisonMappedXmlDriver())`, compact mapped JSON; dates in `timeZone`. */
export function createAlphaJsonSerializer(
  aliases: AliasMap = new Map(),
  limits: ReadLimits = DEFAULT_READ_LIMITS,
  timeZone = 'UTC'
): Serializer {
  const ctx: AlphaContext = { aliases, naming: JSON_NAMING, zone: requireJavaZone(timeZone) }
  return {
    format: 'json',
    serialize(value: unknown, type: Descriptor): string {
      const direct = tryWriteAlphaJson(value, type, ctx)
      return direct !== STAND_ASIDE ? direct : renderAlphaJson(toAlphaNode(value, type, ctx))
    },
    deserialize(bytes: Uint8Array, type: Descriptor): unknown {
      const direct = tryReadAlphaJson(bytes, type, ctx, limits)
      return direct !== STAND_ASIDE ? direct : readAlphaJsonTree(bytes, type, ctx, limits)
    }
  }
}

/** Every form XStream and Jettison read, through a JSON tree and an element tree; the errors' words. */
export function readAlphaJsonTree(bytes: Uint8Array, type: Descriptor, ctx: AlphaContext, limits: ReadLimits): unknown {
  const tree = parseJson(bytes, { limits })
  if (tree.t !== 'obj' || tree.members.length !== 1)
    throw new ValueError('alpha JSON must be an object with exactly one member, the root element')
  const [name, value] = tree.members[0]!
  const roots: AlphaNode[] = []
  toNodes(name, value, roots)
  if (roots.length !== 1) throw new ValueError('alpha JSON root must be a single element')
  const root = roots[0]!
  // {"in":""} is an element without content: an object with every field null.
  if (root.text === '' && root.children.length === 0 && type.kind !== 'scalar') root.text = null
  return fromAlphaNode(root, type, ctx)
}
