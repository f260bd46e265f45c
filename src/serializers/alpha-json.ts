import type { Descriptor } from '../descriptors/types'
import { parseJson, type JsonNode } from '../json/parse'
import type { Serializer } from './serializer'
import { ValueError } from './errors'
import { javaDouble } from './java-text'
import { jsonString, type JsonStringStyle } from './json-string'
import { type AliasMap, type AlphaNaming, type AlphaNode, toAlphaNode, fromAlphaNode, alphaTypeName, checkRoot } from './alpha-node'

/** Jettison "mapped" JSON keeps names as they are: no XML name coding. */
export const JSON_NAMING: AlphaNaming = { field: (n) => n, className: (n) => n }

const LONG_MIN = -(2n ** 63n)
const LONG_MAX = 2n ** 63n - 1n

/** Jettison writes leaf text as a JSON primitive when it reads back identically; otherwise as a string. */
export function jettisonPrimitive (text: string): string {
  if (text === 'true' || text === 'false') return text
  if (/^-?[0-9]+$/.test(text)) {
    const n = BigInt(text)
    if (n >= LONG_MIN && n <= LONG_MAX && n.toString() === text) return text
  } else if (/^-?[0-9]+\.[0-9]+(E[0-9]+)?$/.test(text)) {
    const x = Number(text)
    if (Number.isFinite(x) && javaDouble(x) === text) return text.endsWith('.0') ? text.slice(0, -2) : text
  }
  return jettisonString(text)
}

const JETTISON: JsonStringStyle = { escapeCloseTag: true, upperHex: false }

export function jettisonString (s: string): string {
  return jsonString(s, JETTISON)
}

function content (node: AlphaNode): string {
  if (node.collection) return node.children.length === 0 ? '[""]' : `[${group(node.children)}]`
  if (node.children.length > 0) return group(node.children)
  return node.text === null ? '""' : jettisonPrimitive(node.text)
}

/** Children grouped by name in first-seen order; a repeated name becomes an array. */
function group (children: AlphaNode[]): string {
  const byName = new Map<string, AlphaNode[]>()
  for (const c of children) {
    const list = byName.get(c.name)
    if (list === undefined) byName.set(c.name, [c])
    else list.push(c)
  }
  const parts: string[] = []
  for (const [name, nodes] of byName) {
    parts.push(`${jettisonString(name)}:${nodes.length === 1 ? content(nodes[0]!) : `[${nodes.map(content).join(',')}]`}`)
  }
  return `{${parts.join(',')}}`
}

export function renderAlphaJson (node: AlphaNode): string {
  return `{${jettisonString(node.name)}:${content(node)}}`
}

/** Reads mapped JSON back into elements: an array value means repeated elements of that name. */
function toNodes (name: string, v: JsonNode, out: AlphaNode[]): void {
  if (v.t === 'arr') {
    for (const item of v.items) toNodes(name, item, out)
    return
  }
  out.push(toNode(name, v))
}

function toNode (name: string, v: JsonNode): AlphaNode {
  switch (v.t) {
    case 'null': return { name, text: null, children: [], collection: false }
    case 'bool': return { name, text: v.v ? 'true' : 'false', children: [], collection: false }
    case 'num': return { name, text: v.text, children: [], collection: false }
    case 'str': return { name, text: v.v, children: [], collection: false }
    case 'obj': {
      const children: AlphaNode[] = []
      let text: string | null = null
      for (const [key, value] of v.members) {
        if (key === '$') text = value.t === 'str' ? value.v : value.t === 'num' ? value.text : null
        else if (key.startsWith('@')) throw new ValueError(`attribute '${key}' is not accepted here`)
        else toNodes(key, value, children)
      }
      return { name, text, children, collection: false }
    }
    case 'arr': throw new ValueError('nested arrays are not accepted here')
  }
}

/** alpha JSON: `new XStream(new JettisonMappedXmlDriver())`, compact mapped JSON. */
export function createAlphaJsonSerializer (aliases: AliasMap = new Map()): Serializer {
  return {
    format: 'json',
    serialize (value: unknown, type: Descriptor): string {
      return renderAlphaJson(toAlphaNode(value, type, alphaTypeName(type, aliases, JSON_NAMING), aliases, JSON_NAMING))
    },
    deserialize (bytes: Uint8Array, type: Descriptor): unknown {
      const tree = parseJson(bytes)
      if (tree.t !== 'obj' || tree.members.length !== 1) throw new ValueError('alpha JSON must be an object with exactly one member, the root element')
      const [name, value] = tree.members[0]!
      const roots: AlphaNode[] = []
      toNodes(name, value, roots)
      if (roots.length !== 1) throw new ValueError('alpha JSON root must be a single element')
      const root = roots[0]!
      if (root.text === '' && root.children.length === 0) root.text = type.kind === 'scalar' ? '' : null
      checkRoot(root, type, aliases, JSON_NAMING)
      return fromAlphaNode(root, type, aliases, JSON_NAMING, false)
    }
  }
}
