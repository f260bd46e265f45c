import { errorMessage } from '../../../common/errors/internal'
import {
  t,
  type Descriptor,
  type ObjectDescriptor,
  type FieldDescriptor,
  boxed,
  isNullable,
  typeName,
  javaClassName,
  inferType,
  sameType,
  plain,
  Typed,
  LocalDate
} from '../../descriptors/descriptors'
import { ValueError, rethrowAt } from '../errors'
import type { JavaZone } from '../java/zones'
import {
  kindOf,
  parseScalar,
  xstreamScalarText,
  javaMapEntries,
  isCharArray,
  charArrayText,
  splitChars,
  readLocalDate,
  primitiveDefault
} from '../java/text'
import { xstreamDate, parseXStreamDate } from '../java/dates'

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
  /** Set while writing or reading: paths for XStream references are computed from these only when needed. */
  parent?: AlphaNode | null
  /** Set while reading: the value built from this element, for references to it. */
  value?: unknown
}

export interface AlphaNaming {
  /** Element name of a field: XML codes `_` and `$`, JSON does not. */
  field(name: string): string
  /** Element name of a class without an alias. */
  className(name: string): string
}

/** Type aliases registered on an alpha serializer: Java class name → alias (e.g. java.lang.Object[] → paramArray). */
export type AliasMap = ReadonlyMap<string, string>

export interface AlphaContext {
  readonly aliases: AliasMap
  readonly naming: AlphaNaming
  /** The DateConverter's zone (XStream's default: UTC). */
  readonly zone?: JavaZone
}

const SCALAR_NAMES: Record<string, string> = {
  int: 'int',
  Integer: 'int',
  long: 'long',
  Long: 'long',
  double: 'double',
  Double: 'double',
  boolean: 'boolean',
  Boolean: 'boolean',
  char: 'char',
  Character: 'char',
  String: 'string'
}

/** The element name XStream gives a value of this runtime type. */
export function alphaTypeName(d: Descriptor, ctx: AlphaContext): string {
  switch (d.kind) {
    case 'scalar':
      return SCALAR_NAMES[d.type]!
    case 'date':
      return 'date'
    case 'localDate':
      return 'local-date'
    case 'object':
      return ctx.aliases.get(d.className) ?? d.alias ?? ctx.naming.className(d.className)
    case 'list': {
      const cls = javaClassName(d)
      if (cls === 'java.util.ArrayList') return 'list'
      if (cls === 'java.util.LinkedList') return 'linked-list'
      // XStream 1.4.20 on Java 17 has no converter for the JDK's private list classes.
      throw new ValueError(`No converter available for ${cls} (XStream cannot write it on Java 17)`)
    }
    case 'map':
      return javaClassName(d) === 'java.util.LinkedHashMap' ? 'linked-hash-map' : 'map'
    case 'array': {
      const alias = ctx.aliases.get(javaClassName(d))
      if (alias !== undefined) return alias
      return `${componentName(d.item, ctx)}-array`
    }
    case 'any':
      return 'object'
    case 'void':
      throw new ValueError('void has no value')
  }
}

/**
 * The name of an array's component class before "-array". XStream uses the alias of the component
 * class itself, not of its default implementation (asked of XStream 1.4.20 through the oracle):
 * List[] is list-array but ArrayList[] java.util.ArrayList-array; Map[] map-array, HashMap[]
 * java.util.HashMap-array; String[] string-array, Date[] date-array, LocalDate[] local-date-array;
 * boxed numbers keep their class name (java.lang.Integer-array).
 */
function componentName(d: Descriptor, ctx: AlphaContext): string {
  switch (d.kind) {
    case 'scalar':
      if (d.type === 'String') return 'string'
      return d.type === d.type.toLowerCase() ? d.type : ctx.naming.className(javaClassName(d))
    case 'date':
      return 'date'
    case 'localDate':
      return 'local-date'
    case 'list':
      if (d.className === 'java.util.List') return 'list'
      if (d.className === 'java.util.LinkedList') return 'linked-list'
      return ctx.naming.className(d.className)
    case 'map':
      if (d.className === 'java.util.Map') return 'map'
      if (d.className === 'java.util.LinkedHashMap') return 'linked-hash-map'
      return ctx.naming.className(d.className)
    case 'object':
    case 'any':
    case 'array':
      return alphaTypeName(d, ctx)
    default:
      return ctx.naming.className(javaClassName(d))
  }
}

/** The runtime class XStream assumes for a declared type when no class attribute says otherwise. */
export function defaultRuntime(d: Descriptor): Descriptor {
  if (d.kind === 'list' && d.className === 'java.util.List') return t.list(d.item, 'java.util.ArrayList')
  if (d.kind === 'map' && d.className === 'java.util.Map') return t.map(d.value, 'java.util.HashMap')
  return d
}

function runtimeOf(value: unknown, declared: Descriptor): Descriptor {
  if (declared.kind === 'any') {
    const r = inferType(value)
    if (r === undefined)
      throw new ValueError(`a ${kindOf(value)} in an Object slot needs its class: wrap it with t.typed(Type, value)`)
    return r!
  }
  if (value instanceof Typed) {
    const r = value.type
    const fits =
      sameType(r, declared) ||
      (declared.kind === 'list' && r.kind === 'list' && declared.className === 'java.util.List') ||
      (declared.kind === 'map' &&
        r.kind === 'map' &&
        (declared.className === 'java.util.Map' ||
          (declared.className === 'java.util.HashMap' && r.className === 'java.util.LinkedHashMap')))
    if (!fits) throw new ValueError(`a ${typeName(r)} does not fit a ${typeName(declared)} slot`)
    return r
  }
  return defaultRuntime(declared)
}

/**
 * What a class attribute holds: the mapper's name of the class, uncoded. XStream codes element and
 * attribute names for XML (Nest$C → Nest_-C) but writes and reads attribute values as they are, so
 * an object of a nested class in an Object field is <f class="p.Nest$C"> and class="p.Nest_-C" names
 * no class (asked of XStream 1.4.20 through the oracle).
 */
const CLASS_ATTRIBUTE_NAMING: AlphaNaming = { field: (n) => n, className: (n) => n }

/** One per serializer's context, made when a class attribute is first written or read. */
const classContexts = new WeakMap<AlphaContext, AlphaContext>()

function classAttributeContext(ctx: AlphaContext): AlphaContext {
  let c = classContexts.get(ctx)
  if (c === undefined) classContexts.set(ctx, (c = { ...ctx, naming: CLASS_ATTRIBUTE_NAMING }))
  return c
}

function leaf(name: string, attrs: Array<[string, string]>, text: string | null, parent: AlphaNode | null): AlphaNode {
  return { name, attrs, text, children: [], collection: false, parent }
}

/** Builds nodes; remembers objects already written so a second occurrence becomes a reference. */
class Writer {
  private readonly seen = new Map<object, AlphaNode>()
  constructor(private readonly ctx: AlphaContext) {}

  node(value: unknown, declared: Descriptor, fieldName: string | null, parent: AlphaNode | null): AlphaNode {
    const v = value instanceof Typed ? value.value : value
    if (v === null || v === undefined) {
      if (!isNullable(declared)) throw new ValueError(`${typeName(declared)} cannot be null`)
      return leaf(fieldName ?? 'null', [], null, parent)
    }
    const runtime = runtimeOf(value, declared)
    const name = fieldName ?? alphaTypeName(runtime, this.ctx)
    const attrs: Array<[string, string]> = []
    if (typeof v === 'object' && !(v instanceof Date) && !(v instanceof LocalDate)) {
      const first = this.seen.get(v)
      if (first !== undefined) {
        const self = leaf(name, attrs, null, parent)
        attrs.push(['reference', relativePath(pathOf(self), pathOf(first))])
        return self
      }
    }
    // A field whose runtime class is not the one its declared type implies says so (class="int").
    if (fieldName !== null && javaClassName(runtime) !== javaClassName(defaultRuntime(declared))) {
      attrs.push(['class', alphaTypeName(runtime, classAttributeContext(this.ctx))])
    }
    switch (runtime.kind) {
      case 'scalar':
        return leaf(name, attrs, xstreamScalarText(runtime.type, v), parent)
      case 'date':
        if (!(v instanceof Date)) throw new ValueError(`expected a Date, got ${kindOf(v)}`)
        return leaf(name, attrs, xstreamDate(v, this.ctx.zone), parent)
      case 'localDate':
        if (!(v instanceof LocalDate)) throw new ValueError(`expected a LocalDate, got ${kindOf(v)}`)
        return leaf(name, attrs, v.iso, parent)
      case 'object':
        return this.object(v, runtime, name, attrs, parent)
      case 'list':
      case 'array': {
        if (!Array.isArray(v)) throw new ValueError(`expected ${typeName(runtime)} (an array), got ${kindOf(v)}`)
        if (isCharArray(runtime)) return { name, attrs, text: charArrayText(v), children: [], collection: true, parent }
        const node: AlphaNode = { name, attrs, text: null, children: [], collection: true, parent }
        this.seen.set(v, node)
        // A List's items are objects in Java (List<Integer>): <null/> where an int[] has none.
        const item = runtime.kind === 'list' ? boxed(runtime.item) : runtime.item
        for (let k = 0; k < v.length; k++) {
          try {
            node.children.push(this.node(v[k], item, null, node))
          } catch (err) {
            rethrowAt(err, k)
          }
        }
        return node
      }
      case 'map': {
        const node: AlphaNode = { name, attrs, text: null, children: [], collection: true, parent }
        this.seen.set(v, node)
        // A Map's values are objects in Java: <null/> for null.
        const value = boxed(runtime.value)
        for (const [k, x] of javaMapEntries(v, runtime.className)) {
          const entry: AlphaNode = {
            name: 'entry',
            attrs: [],
            text: null,
            children: [],
            collection: false,
            parent: node
          }
          entry.children.push(leaf('string', [], k, entry))
          try {
            entry.children.push(this.node(x, value, null, entry))
          } catch (err) {
            rethrowAt(err, k)
          }
          node.children.push(entry)
        }
        return node
      }
      case 'any':
      case 'void':
        throw new ValueError(`cannot write ${typeName(runtime)}`)
    }
  }

  private object(
    v: unknown,
    d: ObjectDescriptor,
    name: string,
    attrs: Array<[string, string]>,
    parent: AlphaNode | null
  ): AlphaNode {
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw new ValueError(`expected ${d.className}, got ${kindOf(v)}`)
    const node: AlphaNode = { name, attrs, text: null, children: [], collection: false, parent }
    this.seen.set(v, node)
    const record = v as Record<string, unknown>
    const naming = this.ctx.naming
    for (const f of d.fields) {
      if (f.omit) continue
      const fv = Object.prototype.hasOwnProperty.call(record, f.name) ? record[f.name] : null
      // XStream leaves null fields out entirely, a typed null (t.typed(In, null)) too: it is Java's null.
      const given = plain(fv)
      if (given === null || given === undefined) {
        if (!isNullable(f.type)) throw new ValueError(`${typeName(f.type)} cannot be null`, `/${f.name}`)
        continue
      }
      try {
        if (f.attribute) {
          if (f.type.kind !== 'scalar') throw new ValueError('only scalars can be attributes')
          attrs.push([naming.field(f.alias ?? f.name), xstreamScalarText(f.type.type, fv)])
        } else if (f.implicit !== undefined && f.type.kind === 'list') {
          const items = fv instanceof Typed ? fv.value : fv
          if (!Array.isArray(items)) throw new ValueError(`expected a list, got ${kindOf(items)}`)
          for (let k = 0; k < items.length; k++) {
            try {
              // XStream codes the item name like a field's (_ → __); a null item is <null/>.
              const item = plain(items[k])
              const itemName = item === null || item === undefined ? null : naming.field(f.implicit)
              node.children.push(this.node(items[k], boxed(f.type.item), itemName, node))
            } catch (err) {
              rethrowAt(err, k)
            }
          }
        } else {
          node.children.push(this.node(fv, f.type, naming.field(f.alias ?? f.name), node))
        }
      } catch (err) {
        rethrowAt(err, f.name)
      }
    }
    return node
  }
}

/** XPath segments from the root to a node: name, or name[n] for the n-th sibling of that name. */
function pathOf(node: AlphaNode): string[] {
  const out: string[] = []
  for (let n: AlphaNode | null | undefined = node; n != null; n = n.parent) {
    const p: AlphaNode | null | undefined = n.parent
    let index = 1
    if (p != null) {
      for (const c of p.children) {
        if (c === n) break
        if (c.name === n.name) index++
      }
    }
    out.push(index === 1 ? n.name : `${n.name}[${index}]`)
  }
  return out.reverse()
}

/** XStream's relative XPath from one element to another: ../in, ../../in, ../in[2]/a. */
function relativePath(from: string[], to: string[]): string {
  let common = 0
  while (common < from.length && common < to.length && from[common] === to[common]) common++
  return [...new Array<string>(from.length - common).fill('..'), ...to.slice(common)].join('/')
}

/** The element a relative XPath names, walking the node tree from `from`; null when there is none. */
function resolveReference(from: AlphaNode, relative: string): AlphaNode | null {
  let n: AlphaNode | null | undefined = from
  for (const part of relative.split('/')) {
    if (n == null) return null
    if (part === '..') {
      n = n.parent
      continue
    }
    if (part === '.' || part === '') continue
    const m = /^(.*?)(?:\[(\d+)\])?$/.exec(part)!
    const wanted = Number(m[2] ?? 1)
    let seen = 0
    let found: AlphaNode | null = null
    for (const c of n.children) {
      if (c.name === m[1] && ++seen === wanted) {
        found = c
        break
      }
    }
    n = found
  }
  return n ?? null
}

export function toAlphaNode(value: unknown, declared: Descriptor, ctx: AlphaContext): AlphaNode {
  return new Writer(ctx).node(value, declared, null, null)
}

// ---- reading ----

const BUILTIN_NAMES: Record<string, Descriptor> = {
  int: t.Integer,
  long: t.Long,
  double: t.Double,
  boolean: t.Boolean,
  char: t.Character,
  string: t.String,
  date: t.Date,
  'local-date': t.LocalDate
}

/**
 * The type an element name (or class attribute) stands for, within what the declared type allows:
 * built-in value types always, classes only when declared. Null when the name is not allowed.
 */
function resolveName(name: string, declared: Descriptor, ctx: AlphaContext): Descriptor | null {
  const expected = defaultRuntime(declared)
  if (declared.kind !== 'any') {
    if (alphaTypeNameOrNull(expected, ctx) === name) return expected
    if (declared.kind === 'list' && declared.className === 'java.util.List') {
      if (name === 'linked-list') return t.list(declared.item, 'java.util.LinkedList')
    }
    // A LinkedHashMap is a HashMap too: XStream builds it and Java takes it where either is declared.
    if (declared.kind === 'map' && declared.className !== 'java.util.LinkedHashMap' && name === 'linked-hash-map')
      return t.map(declared.value, 'java.util.LinkedHashMap')
    return null
  }
  const builtin = BUILTIN_NAMES[name]
  if (builtin !== undefined) return builtin
  const inner = t.Object(declared.allowed)
  switch (name) {
    case 'list':
      return t.list(inner, 'java.util.ArrayList')
    case 'linked-list':
      return t.list(inner, 'java.util.LinkedList')
    case 'map':
      return t.map(inner, 'java.util.HashMap')
    case 'linked-hash-map':
      return t.map(inner, 'java.util.LinkedHashMap')
    default:
      break
  }
  const objectArray = t.array(inner)
  if (alphaTypeName(objectArray, ctx) === name) return objectArray
  for (const a of declared.allowed) {
    if (alphaTypeNameOrNull(a, ctx) === name) return a
    if (a.kind !== 'array' && alphaTypeNameOrNull(t.array(a), ctx) === name) return t.array(a)
  }
  return name.endsWith('-array') ? arrayNamed(name, declared.allowed, ctx) : null
}

/**
 * An array of anything XStream's default permissions allow (a primitive, a box, String, Date,
 * LocalDate, a JDK list or map, Object, a listed class, an array of these) in an Object slot, by the
 * name XStream writes it with (componentName): int-array, java.lang.Integer-array, list-array,
 * string-array-array. Only on the rare path: a name nothing above took.
 */
function arrayNamed(name: string, allowed: readonly Descriptor[], ctx: AlphaContext): Descriptor | null {
  const base = name.slice(0, -'-array'.length)
  const inner = t.Object(allowed)
  const candidates: Descriptor[] = [
    t.int,
    t.long,
    t.double,
    t.boolean,
    t.char,
    t.Integer,
    t.Long,
    t.Double,
    t.Boolean,
    t.Character,
    t.String,
    t.Date,
    t.LocalDate,
    t.list(inner),
    t.list(inner, 'java.util.ArrayList'),
    t.list(inner, 'java.util.LinkedList'),
    t.map(inner),
    t.map(inner, 'java.util.HashMap'),
    t.map(inner, 'java.util.LinkedHashMap'),
    inner,
    ...allowed
  ]
  for (const c of candidates) if (componentNameOrNull(c, ctx) === base) return t.array(c)
  if (!base.endsWith('-array')) return null
  const component = arrayNamed(base, allowed, ctx)
  return component === null ? null : t.array(component)
}

function componentNameOrNull(d: Descriptor, ctx: AlphaContext): string | null {
  try {
    return componentName(d, ctx)
  } catch (err) {
    if (err instanceof ValueError) return null
    throw err
  }
}

export function alphaTypeNameOrNull(d: Descriptor, ctx: AlphaContext): string | null {
  try {
    return alphaTypeName(d, ctx)
  } catch (err) {
    if (err instanceof ValueError) return null
    throw err
  }
}

class Reader {
  constructor(private readonly ctx: AlphaContext) {}

  read(node: AlphaNode, declared: Descriptor, isField: boolean): unknown {
    const ref = node.attrs.length > 0 ? attr(node, 'reference') : undefined
    if (ref !== undefined) {
      const target = resolveReference(node, ref)
      if (target === null || target.value === undefined)
        throw new ValueError(
          `reference '${ref}' points to no earlier element (forward and circular references are not accepted)`
        )
      return target.value
    }
    if (node.name === 'null' && !isField && node.children.length === 0) {
      if (!isNullable(declared)) throw new ValueError(`${typeName(declared)} cannot be null`)
      return null
    }
    let runtime: Descriptor | null
    if (isField) {
      const cls = node.attrs.length > 0 ? attr(node, 'class') : undefined
      runtime =
        cls === undefined
          ? declared.kind === 'any'
            ? null
            : defaultRuntime(declared)
          : resolveName(cls, declared, classAttributeContext(this.ctx))
      if (runtime === null)
        throw new ValueError(
          cls === undefined
            ? 'an Object field needs a class attribute'
            : `class '${cls}' is not allowed for ${typeName(declared)}`
        )
    } else {
      runtime = resolveName(node.name, declared, this.ctx)
      if (runtime === null) {
        throw new ValueError(
          declared.kind === 'any'
            ? `type <${node.name}> is not allowed here`
            : `expected <${alphaTypeNameOrNull(defaultRuntime(declared), this.ctx) ?? typeName(declared)}> (${typeName(declared)}), got <${node.name}>`
        )
      }
    }
    let value = this.readAs(node, runtime)
    if (declared.kind === 'any') {
      const inferred = inferType(value)
      if (inferred === undefined || inferred === null || !sameType(inferred, runtime)) value = new Typed(runtime, value)
    } else if (runtime !== declared && javaClassName(runtime) !== javaClassName(defaultRuntime(declared))) {
      value = new Typed(runtime, value)
    }
    if (typeof value === 'object' && value !== null) node.value = value
    return value
  }

  private child(
    parent: AlphaNode,
    child: AlphaNode,
    d: Descriptor,
    isField: boolean,
    segment: string | number
  ): unknown {
    child.parent = parent
    try {
      return this.read(child, d, isField)
    } catch (err) {
      return rethrowAt(err, segment)
    }
  }

  private readAs(node: AlphaNode, d: Descriptor): unknown {
    switch (d.kind) {
      case 'scalar':
        if (node.children.length > 0) throw new ValueError(`expected ${d.type}, got an element with children`)
        return parseScalar(d.type, node.text ?? '', true)
      case 'date':
        return parseXStreamDate(node.text ?? '', this.ctx.zone)
      case 'localDate':
        try {
          return readLocalDate(node.text ?? '')
        } catch (err) {
          throw new ValueError(errorMessage(err))
        }
      case 'object':
        return this.object(node, d)
      case 'list':
      case 'array': {
        // XStream's CharArrayConverter: the element's text, one char per UTF-16 unit.
        if (isCharArray(d)) {
          if (node.children.length > 0) throw new ValueError('expected the text of a char[], got elements')
          return splitChars(node.text ?? '')
        }
        const out = new Array<unknown>(node.children.length)
        node.value = out
        const item = d.kind === 'list' ? boxed(d.item) : d.item
        for (let k = 0; k < out.length; k++) out[k] = this.child(node, node.children[k]!, item, false, k)
        return out
      }
      case 'map': {
        const out = new Map<string, unknown>()
        node.value = out
        const value = boxed(d.value)
        for (const entry of node.children) {
          entry.parent = node
          if (entry.name !== 'entry' || entry.children.length !== 2)
            throw new ValueError('a map holds <entry> elements of a key and a value')
          const [keyNode, valueNode] = entry.children as [AlphaNode, AlphaNode]
          const key = this.child(entry, keyNode, t.String, false, 'entry')
          if (typeof key !== 'string') throw new ValueError('map keys must be strings')
          out.set(key, this.child(entry, valueNode, value, false, key))
        }
        return out
      }
      case 'any':
      case 'void':
        throw new ValueError(`cannot read ${typeName(d)}`)
    }
  }

  private object(node: AlphaNode, d: ObjectDescriptor): Record<string, unknown> {
    // XStream's reflection converter reads the child elements and ignores any text beside them.
    const out: Record<string, unknown> = {}
    for (const f of d.fields) out[f.name] = primitiveDefault(f.type)
    node.value = out
    const naming = this.ctx.naming
    for (const [name, value] of node.attrs) {
      if (name === 'class' || name === 'reference') continue
      const f = d.fields.find((g) => g.attribute && naming.field(g.alias ?? g.name) === name)
      if (f === undefined || f.type.kind !== 'scalar') throw new ValueError(`${d.className} has no attribute '${name}'`)
      try {
        out[f.name] = parseScalar(f.type.type, value, true)
      } catch (err) {
        rethrowAt(err, f.name)
      }
    }
    let seen: Set<string> | null = null
    let implicit: Map<FieldDescriptor, unknown[]> | null = null
    for (const child of node.children) {
      const named = fieldFor(d, child.name, naming)
      const field = named ?? nullItemField(d, child)
      if (field === undefined) throw new ValueError(`No such field ${d.className}.${child.name}`)
      if (field.omit) continue
      if (field.implicit !== undefined && field.type.kind === 'list') {
        implicit ??= new Map()
        const items = implicit.get(field) ?? []
        implicit.set(field, items)
        // A null item is <null/>; the list holds objects in Java (List<Integer>), so it may be null.
        // Found by nullItemField: the <null/> item of the class's implicit collection.
        const isNull = named === undefined
        items.push(this.child(node, child, isNull ? boxed(field.type.item) : field.type.item, !isNull, field.name))
        continue
      }
      seen ??= new Set()
      if (seen.has(field.name)) throw new ValueError(`field '${field.name}' given twice`)
      seen.add(field.name)
      out[field.name] = this.child(node, child, field.type, true, field.name)
    }
    if (implicit !== null) for (const [f, items] of implicit) out[f.name] = items
    return out
  }
}

/**
 * The implicit collection a null item (<null/>, written without the item name) belongs to. XStream
 * takes the first of the class's implicit collections in a HashMap keyed by identity hash codes: one
 * when there is one, and no telling which when there are several, so those are refused.
 */
function nullItemField(d: ObjectDescriptor, child: AlphaNode): FieldDescriptor | undefined {
  if (child.name !== 'null') return undefined
  const implicit = d.fields.filter((f) => f.implicit !== undefined && f.type.kind === 'list')
  if (implicit.length > 1)
    throw new ValueError(`a null item (<null/>) in ${d.className}, which has ${implicit.length} implicit collections`)
  return implicit[0]
}

/** Element name → field, per class and naming, computed once. */
const fieldIndex = new WeakMap<ObjectDescriptor, WeakMap<AlphaNaming, Map<string, FieldDescriptor>>>()

function fieldFor(d: ObjectDescriptor, element: string, naming: AlphaNaming): FieldDescriptor | undefined {
  return fieldsByElement(d, naming).get(element)
}

/** A class's fields by the element name they are read from (attributes left out). */
export function fieldsByElement(d: ObjectDescriptor, naming: AlphaNaming): Map<string, FieldDescriptor> {
  let byNaming = fieldIndex.get(d)
  if (byNaming === undefined) {
    byNaming = new WeakMap()
    fieldIndex.set(d, byNaming)
  }
  let index = byNaming.get(naming)
  if (index === undefined) {
    index = new Map()
    for (const f of d.fields) {
      if (f.attribute) continue
      index.set(naming.field(f.implicit ?? f.alias ?? f.name), f)
    }
    byNaming.set(naming, index)
  }
  return index
}

function attr(node: AlphaNode, name: string): string | undefined {
  for (const [k, v] of node.attrs) if (k === name) return v
  return undefined
}

/** Reads the value of type `declared` from a root node; only declared (or built-in) types are built. */
export function fromAlphaNode(root: AlphaNode, declared: Descriptor, ctx: AlphaContext): unknown {
  root.parent = null
  return new Reader(ctx).read(root, declared, false)
}
