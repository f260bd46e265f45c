import {
  t, type Descriptor, type ObjectDescriptor, type AnyDescriptor, type FieldDescriptor,
  isNullable, typeName, javaClassName, inferType, plain, sameType, Typed, LocalDate
} from '../descriptors/types'
import { ValueError, within } from './errors'
import { kindOf, parseScalar, scalarText, hashMapOrder, xstreamDate, parseXStreamDate } from './java-text'

/**
 * The XStream element model the alpha family writes and reads. XStream produces a tree of
 * elements; the XML driver prints it indented, the Jettison "mapped" driver prints it as JSON.
 */
export interface AlphaNode {
  name: string
  attrs: Array<[string, string]>
  /** Character content; null when the element has none (printed as `<x/>`). */
  text: string | null
  children: AlphaNode[]
  /** Collections, arrays and maps: Jettison wraps their content in `[ ]`. */
  collection: boolean
}

export interface AlphaNaming {
  /** Element name of a field: XML codes `_` and `$`, JSON does not. */
  field (name: string): string
  /** Element name of a class without an alias. */
  className (name: string): string
}

/** Type aliases registered on an alpha serializer: Java class name → alias (e.g. java.lang.Object[] → paramArray). */
export type AliasMap = ReadonlyMap<string, string>

export interface AlphaContext {
  readonly aliases: AliasMap
  readonly naming: AlphaNaming
}

const SCALAR_NAMES: Record<string, string> = {
  int: 'int', Integer: 'int', long: 'long', Long: 'long', double: 'double', Double: 'double',
  boolean: 'boolean', Boolean: 'boolean', char: 'char', Character: 'char', String: 'string'
}

/** The element name XStream gives a value of this runtime type. */
export function alphaTypeName (d: Descriptor, ctx: AlphaContext): string {
  switch (d.kind) {
    case 'scalar': return SCALAR_NAMES[d.type]!
    case 'date': return 'date'
    case 'localDate': return 'local-date'
    case 'object': return ctx.aliases.get(d.className) ?? d.alias ?? ctx.naming.className(d.className)
    case 'list': {
      const cls = javaClassName(d)
      if (cls === 'java.util.ArrayList') return 'list'
      if (cls === 'java.util.LinkedList') return 'linked-list'
      // XStream 1.4.20 on Java 17 has no converter for the JDK's private list classes.
      throw new ValueError(`No converter available for ${cls} (XStream cannot write it on Java 17)`)
    }
    case 'map': return javaClassName(d) === 'java.util.LinkedHashMap' ? 'linked-hash-map' : 'map'
    case 'array': {
      const alias = ctx.aliases.get(javaClassName(d))
      if (alias !== undefined) return alias
      return `${componentName(d.item, ctx)}-array`
    }
    case 'any': return 'object'
    case 'void': throw new ValueError('void has no value')
  }
}

function componentName (d: Descriptor, ctx: AlphaContext): string {
  if (d.kind === 'scalar') return d.type === d.type.toLowerCase() ? d.type : ctx.naming.className(javaClassName(d))
  if (d.kind === 'object' || d.kind === 'any' || d.kind === 'array') return alphaTypeName(d, ctx)
  return ctx.naming.className(javaClassName(d))
}

/** The runtime class XStream assumes for a declared type when no class attribute says otherwise. */
function defaultRuntime (d: Descriptor): Descriptor {
  if (d.kind === 'list' && d.className === 'java.util.List') return t.list(d.item, 'java.util.ArrayList')
  if (d.kind === 'map' && d.className === 'java.util.Map') return t.map(d.value, 'java.util.HashMap')
  return d
}

function runtimeOf (value: unknown, declared: Descriptor): Descriptor {
  if (declared.kind === 'any') {
    const r = inferType(value)
    if (r === undefined) throw new ValueError(`a ${kindOf(value)} in an Object slot needs its class: wrap it with t.typed(Type, value)`)
    return r!
  }
  if (value instanceof Typed) {
    const r = value.type
    const fits = sameType(r, declared) ||
      (declared.kind === 'list' && r.kind === 'list' && declared.className === 'java.util.List') ||
      (declared.kind === 'map' && r.kind === 'map' && declared.className === 'java.util.Map')
    if (!fits) throw new ValueError(`a ${typeName(r)} does not fit a ${typeName(declared)} slot`)
    return r
  }
  return defaultRuntime(declared)
}

/** Builds nodes; remembers objects already written so a second occurrence becomes a reference. */
class Writer {
  private readonly seen = new Map<object, string[]>()
  constructor (private readonly ctx: AlphaContext) {}

  node (value: unknown, declared: Descriptor, fieldName: string | null, path: string[]): AlphaNode {
    const v = plain(value)
    if (v === null || v === undefined) {
      if (!isNullable(declared)) throw new ValueError(`${typeName(declared)} cannot be null`)
      return { name: fieldName ?? 'null', attrs: [], text: null, children: [], collection: false }
    }
    const runtime = runtimeOf(value, declared)
    const name = fieldName ?? alphaTypeName(runtime, this.ctx)
    const attrs: Array<[string, string]> = []
    if (typeof v === 'object' && !(v instanceof Date) && !(v instanceof LocalDate)) {
      const first = this.seen.get(v)
      if (first !== undefined) return { name, attrs: [['reference', relativePath(path, first)]], text: null, children: [], collection: false }
      this.seen.set(v, path)
    }
    // A field whose runtime class is not the one its declared type implies says so (class="int").
    if (fieldName !== null && javaClassName(runtime) !== javaClassName(defaultRuntime(declared))) {
      attrs.push(['class', alphaTypeName(runtime, this.ctx)])
    }
    switch (runtime.kind) {
      case 'scalar': return { name, attrs, text: scalarText(runtime.type, v), children: [], collection: false }
      case 'date':
        if (!(v instanceof Date)) throw new ValueError(`expected a Date, got ${kindOf(v)}`)
        return { name, attrs, text: xstreamDate(v), children: [], collection: false }
      case 'localDate':
        if (!(v instanceof LocalDate)) throw new ValueError(`expected a LocalDate, got ${kindOf(v)}`)
        return { name, attrs, text: v.iso, children: [], collection: false }
      case 'object': return this.object(v, runtime, name, attrs, path)
      case 'list': case 'array': {
        if (!Array.isArray(v)) throw new ValueError(`expected ${typeName(runtime)} (an array), got ${kindOf(v)}`)
        const item = runtime.item
        const children = this.items(v.map((x) => [x, item] as const), path)
        return { name, attrs, text: null, children, collection: true }
      }
      case 'map': {
        const entries = mapEntries(v, runtime.className)
        const counter = new Map<string, number>()
        const children = entries.map(([k, x]) => within(k, () => {
          const entryPath = [...path, segment('entry', counter)]
          const key: AlphaNode = { name: 'string', attrs: [], text: k, children: [], collection: false }
          const valueNode = this.items([[x, runtime.value]], entryPath)
          return { name: 'entry', attrs: [], text: null, children: [key, ...valueNode], collection: false }
        }))
        return { name, attrs, text: null, children, collection: true }
      }
      case 'any': case 'void':
        throw new ValueError(`cannot write ${typeName(runtime)}`)
    }
  }

  /** Items of a collection: each named by its runtime type, null as <null/>. */
  private items (values: ReadonlyArray<readonly [unknown, Descriptor]>, path: string[]): AlphaNode[] {
    const counter = new Map<string, number>()
    return values.map(([x, d], k) => within(k, () => {
      const v = plain(x)
      const name = v === null || v === undefined ? 'null' : alphaTypeName(runtimeOf(x, d), this.ctx)
      return this.node(x, d, null, [...path, segment(name, counter)])
    }))
  }

  private object (v: unknown, d: ObjectDescriptor, name: string, attrs: Array<[string, string]>, path: string[]): AlphaNode {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ValueError(`expected ${d.className}, got ${kindOf(v)}`)
    const record = v as Record<string, unknown>
    const children: AlphaNode[] = []
    const counter = new Map<string, number>()
    for (const f of d.fields) {
      if (f.omit) continue
      const fv = Object.prototype.hasOwnProperty.call(record, f.name) ? record[f.name] : null
      if (fv === null || fv === undefined) {
        // XStream leaves null fields out entirely.
        if (!isNullable(f.type)) throw new ValueError(`${typeName(f.type)} cannot be null`, `/${f.name}`)
        continue
      }
      within(f.name, () => {
        if (f.attribute) {
          if (f.type.kind !== 'scalar') throw new ValueError('only scalars can be attributes')
          attrs.push([this.ctx.naming.field(f.alias ?? f.name), scalarText(f.type.type, fv)])
        } else if (f.implicit !== undefined && f.type.kind === 'list') {
          const items = plain(fv)
          if (!Array.isArray(items)) throw new ValueError(`expected a list, got ${kindOf(items)}`)
          const itemType = f.type.item
          for (const [k, item] of items.entries()) {
            children.push(within(k, () => this.node(item, itemType, f.implicit!, [...path, segment(f.implicit!, counter)])))
          }
        } else {
          const el = this.ctx.naming.field(f.alias ?? f.name)
          children.push(this.node(fv, f.type, el, [...path, segment(el, counter)]))
        }
      })
    }
    return { name, attrs, text: null, children, collection: false }
  }
}

function segment (name: string, counter: Map<string, number>): string {
  const n = (counter.get(name) ?? 0) + 1
  counter.set(name, n)
  return n === 1 ? name : `${name}[${n}]`
}

/** XStream's relative XPath from one element to another: ../in, ../../in, ../in[2]/a. */
function relativePath (from: string[], to: string[]): string {
  let common = 0
  while (common < from.length && common < to.length && from[common] === to[common]) common++
  return [...new Array<string>(from.length - common).fill('..'), ...to.slice(common)].join('/')
}

function resolvePath (from: string[], relative: string): string[] {
  const out = [...from]
  for (const part of relative.split('/')) {
    if (part === '..') out.pop()
    else if (part !== '.' && part !== '') out.push(/\[\d+\]$/.test(part) ? part.replace(/\[1\]$/, '') : part)
  }
  return out
}

function mapEntries (v: unknown, className: string): Array<[string, unknown]> {
  let entries: Array<[string, unknown]>
  if (v instanceof Map) entries = [...(v as Map<unknown, unknown>).entries()].map(([k, x]) => [String(k), x])
  else if (typeof v === 'object' && v !== null && !Array.isArray(v)) entries = Object.entries(v)
  else throw new ValueError(`expected a map, got ${kindOf(v)}`)
  if (className !== 'java.util.LinkedHashMap') {
    const order = hashMapOrder(entries.map((e) => e[0]))
    const byKey = new Map(entries)
    entries = order.map((k) => [k, byKey.get(k)])
  }
  return entries
}

export function toAlphaNode (value: unknown, declared: Descriptor, ctx: AlphaContext): AlphaNode {
  const v = plain(value)
  const name = v === null || v === undefined ? 'null' : alphaTypeName(runtimeOf(value, declared), ctx)
  return new Writer(ctx).node(value, declared, null, [name])
}

// ---- reading ----

const BUILTIN_NAMES: Record<string, Descriptor> = {
  int: t.Integer, long: t.Long, double: t.Double, boolean: t.Boolean, char: t.Character, string: t.String,
  date: t.Date, 'local-date': t.LocalDate
}

/**
 * The type an element name (or class attribute) stands for, within what the declared type allows:
 * built-in value types always, classes only when declared. Null when the name is not allowed.
 */
function resolveName (name: string, declared: Descriptor, ctx: AlphaContext): Descriptor | null {
  const expected = defaultRuntime(declared)
  if (declared.kind !== 'any') {
    if (alphaTypeNameOrNull(expected, ctx) === name) return expected
    if (declared.kind === 'list' && declared.className === 'java.util.List') {
      if (name === 'linked-list') return t.list(declared.item, 'java.util.LinkedList')
    }
    if (declared.kind === 'map' && declared.className === 'java.util.Map' && name === 'linked-hash-map') return t.map(declared.value, 'java.util.LinkedHashMap')
    return null
  }
  const builtin = BUILTIN_NAMES[name]
  if (builtin !== undefined) return builtin
  const inner = t.Object(declared.allowed)
  switch (name) {
    case 'list': return t.list(inner, 'java.util.ArrayList')
    case 'linked-list': return t.list(inner, 'java.util.LinkedList')
    case 'map': return t.map(inner, 'java.util.HashMap')
    case 'linked-hash-map': return t.map(inner, 'java.util.LinkedHashMap')
    default: break
  }
  const objectArray = t.array(inner)
  if (alphaTypeName(objectArray, ctx) === name) return objectArray
  for (const a of declared.allowed) {
    if (alphaTypeNameOrNull(a, ctx) === name) return a
    if (a.kind !== 'array' && alphaTypeNameOrNull(t.array(a), ctx) === name) return t.array(a)
  }
  return null
}

function alphaTypeNameOrNull (d: Descriptor, ctx: AlphaContext): string | null {
  try {
    return alphaTypeName(d, ctx)
  } catch {
    return null
  }
}

class Reader {
  private readonly built = new Map<string, unknown>()
  constructor (private readonly ctx: AlphaContext) {}

  read (node: AlphaNode, declared: Descriptor, path: string[], isField: boolean): unknown {
    const ref = attr(node, 'reference')
    if (ref !== undefined) {
      const target = resolvePath(path, ref).join('/')
      if (!this.built.has(target)) throw new ValueError(`reference '${ref}' points to no earlier element (forward and circular references are not accepted)`)
      return this.built.get(target)
    }
    if (node.name === 'null' && !isField && node.children.length === 0) {
      if (!isNullable(declared)) throw new ValueError(`${typeName(declared)} cannot be null`)
      return null
    }
    let runtime: Descriptor | null
    if (isField) {
      const cls = attr(node, 'class')
      runtime = cls === undefined ? (declared.kind === 'any' ? null : defaultRuntime(declared)) : resolveName(cls, declared, this.ctx)
      if (runtime === null) throw new ValueError(cls === undefined ? `an Object field needs a class attribute` : `class '${cls}' is not allowed for ${typeName(declared)}`)
    } else {
      runtime = resolveName(node.name, declared, this.ctx)
      if (runtime === null) {
        throw new ValueError(declared.kind === 'any'
          ? `type <${node.name}> is not allowed here`
          : `expected <${alphaTypeNameOrNull(defaultRuntime(declared), this.ctx) ?? typeName(declared)}> (${typeName(declared)}), got <${node.name}>`)
      }
    }
    let value = this.readAs(node, runtime, path)
    if (declared.kind === 'any') {
      const inferred = inferType(value)
      if (inferred === undefined || inferred === null || !sameType(inferred, runtime)) value = new Typed(runtime, value)
    } else if (javaClassName(runtime) !== javaClassName(defaultRuntime(declared))) {
      value = new Typed(runtime, value)
    }
    if (typeof value === 'object' && value !== null) this.built.set(path.join('/'), value)
    return value
  }

  private readAs (node: AlphaNode, d: Descriptor, path: string[]): unknown {
    switch (d.kind) {
      case 'scalar':
        if (node.children.length > 0) throw new ValueError(`expected ${d.type}, got an element with children`)
        return parseScalar(d.type, node.text ?? '', true)
      case 'date': return parseXStreamDate(node.text ?? '')
      case 'localDate':
        try {
          return new LocalDate(node.text ?? '')
        } catch (err) {
          throw new ValueError((err as Error).message)
        }
      case 'object': return this.object(node, d, path)
      case 'list': case 'array': {
        const counter = new Map<string, number>()
        return node.children.map((child, k) => within(k, () => this.read(child, d.item, [...path, segment(child.name, counter)], false)))
      }
      case 'map': {
        const out = new Map<string, unknown>()
        const counter = new Map<string, number>()
        for (const entry of node.children) {
          const entryPath = [...path, segment(entry.name, counter)]
          if (entry.name !== 'entry' || entry.children.length !== 2) throw new ValueError('a map holds <entry> elements of a key and a value')
          const [keyNode, valueNode] = entry.children as [AlphaNode, AlphaNode]
          const key = this.read(keyNode, t.String, [...entryPath, keyNode.name], false)
          if (typeof key !== 'string') throw new ValueError('map keys must be strings')
          out.set(key, within(key, () => this.read(valueNode, d.value, [...entryPath, valueNode.name], false)))
        }
        return out
      }
      case 'any': case 'void':
        throw new ValueError(`cannot read ${typeName(d)}`)
    }
  }

  private object (node: AlphaNode, d: ObjectDescriptor, path: string[]): Record<string, unknown> {
    if (node.text !== null && node.text.trim() !== '') throw new ValueError(`expected ${d.className}, got text`)
    const out: Record<string, unknown> = {}
    for (const f of d.fields) out[f.name] = primitiveDefault(f.type)
    const naming = this.ctx.naming
    for (const [name, value] of node.attrs) {
      if (name === 'class' || name === 'reference') continue
      const f = d.fields.find((g) => g.attribute && naming.field(g.alias ?? g.name) === name)
      if (f === undefined || f.type.kind !== 'scalar') throw new ValueError(`${d.className} has no attribute '${name}'`)
      out[f.name] = within(f.name, () => parseScalar((f.type as { type: 'String' }).type, value, true))
    }
    const seen = new Set<string>()
    const counter = new Map<string, number>()
    const implicit = new Map<FieldDescriptor, unknown[]>()
    for (const child of node.children) {
      const childPath = [...path, segment(child.name, counter)]
      const field = d.fields.find((f) => !f.attribute && (f.implicit === child.name || naming.field(f.alias ?? f.name) === child.name))
      if (field === undefined) throw new ValueError(`No such field ${d.className}.${child.name}`)
      if (field.omit) continue
      if (field.implicit !== undefined && field.type.kind === 'list') {
        const items = implicit.get(field) ?? []
        implicit.set(field, items)
        const itemType = field.type.item
        items.push(within(field.name, () => this.read(child, itemType, childPath, true)))
        continue
      }
      if (seen.has(field.name)) throw new ValueError(`field '${field.name}' given twice`)
      seen.add(field.name)
      out[field.name] = within(field.name, () => this.read(child, field.type, childPath, true))
    }
    for (const [f, items] of implicit) out[f.name] = items
    return out
  }
}

function attr (node: AlphaNode, name: string): string | undefined {
  for (const [k, v] of node.attrs) if (k === name) return v
  return undefined
}

/** Reads the value of type `declared` from a root node; only declared (or built-in) types are built. */
export function fromAlphaNode (root: AlphaNode, declared: Descriptor, ctx: AlphaContext): unknown {
  return new Reader(ctx).read(root, declared, [root.name], false)
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

export type { AnyDescriptor }
