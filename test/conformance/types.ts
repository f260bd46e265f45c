// The types of vectors/TYPES.md as runtime descriptors, and the conversions between
// the vectors' JSON description of Java values and our JS values.
import {
  t,
  LocalDate,
  Typed,
  inferType,
  javaClassName,
  simpleName,
  type Descriptor,
  type ObjectDescriptor
} from '../../src/microservice/descriptors/descriptors'

export const In = t.object('com.example.In', { a: t.Integer, b: t.Integer })
export const Out = t.object('com.example.Out', { result: t.Integer })
export const InPlus = t.object('com.example.InPlus', { c: t.Integer }, { extends: In })
export const Outer = t.object('com.example.Outer', { inner: In, name: t.String })
export const Bag = t.object('com.example.Bag', { items: t.list(t.Integer) })
export const Prims = t.object('com.example.Prims', { i: t.int, l: t.long, d: t.double, flag: t.boolean, c: t.char })
export const Snake = t.object('com.example.Snake', { first_name: t.String })
export const Inner = t.object('com.example.Container$Inner', { x: t.Integer })
/** Holder's `value` is declared Object: the classes it may hold when read are listed. */
export const Holder = t.object('com.example.Holder', { value: t.Object([In, Out]), items: t.list(t.Integer) })
export const Annotated = t.object(
  'com.example.Annotated',
  {
    id: t.field(t.Integer, { attribute: true }),
    name: t.field(t.String, { alias: 'label' }),
    secret: t.field(t.String, { omit: true }),
    nums: t.field(t.list(t.Integer), { implicit: 'n' })
  },
  { alias: 'ann' }
)

export const CLASSES: Record<string, ObjectDescriptor> = {
  In,
  Out,
  InPlus,
  Outer,
  Bag,
  Prims,
  Snake,
  Inner,
  Holder,
  Annotated
}
const ALL_CLASSES = Object.values(CLASSES)
export const ANY = t.Object(ALL_CLASSES)

/** The alpha setups' aliases (TYPES.md). */
export const ALPHA_ALIASES = new Map([
  ['com.example.In', 'in'],
  ['com.example.Out', 'out'],
  ['com.example.Outer', 'outer'],
  ['com.example.Bag', 'bag'],
  ['com.example.Holder', 'holder'],
  ['com.example.Prims', 'prims'],
  ['com.example.Snake', 'snake'],
  ['java.lang.Object[]', 'paramArray']
])

const SCALARS: Record<string, Descriptor> = {
  'java.lang.Integer': t.Integer,
  'java.lang.Long': t.Long,
  'java.lang.Double': t.Double,
  'java.lang.Boolean': t.Boolean,
  'java.lang.Character': t.Character,
  'java.lang.String': t.String,
  'java.util.Date': t.Date,
  'java.time.LocalDate': t.LocalDate
}

function element(name: string): Descriptor {
  const short = name.replace(/^com\.example\./, '').replace(/^Container\$/, '')
  if (CLASSES[short] !== undefined) return CLASSES[short]!
  if (name === 'Integer') return t.Integer
  if (name === 'Object') return ANY
  return SCALARS[name] ?? SCALARS[`java.lang.${name}`] ?? fail(name)
}

function fail(name: string): never {
  throw new Error(`no descriptor for '${name}'`)
}

/** A javaType of the vectors (or a result type of a deserialize case) as a descriptor. */
export function descriptorOf(javaType: string): Descriptor {
  if (javaType === 'null') return ANY
  if (javaType === '[Ljava.lang.Object;' || javaType === 'java.lang.Object[]') return t.array(ANY)
  if (javaType.endsWith('[]')) return t.array(element(javaType.slice(0, -2)))
  if (javaType === 'java.util.ArrayList') return t.list(ANY, 'java.util.ArrayList')
  const m = /^java\.util\.([\w$]+)<(.+)>$/.exec(javaType)
  if (m !== null) {
    const [, cls, args] = m as unknown as [string, string, string]
    if (cls === 'HashMap' || cls === 'LinkedHashMap') return t.map(element(args.split(',')[1]!), `java.util.${cls}`)
    return t.list(element(args), `java.util.${cls}` as Parameters<typeof t.list>[1])
  }
  return element(javaType)
}

// ---- Java runtime types of values in Object slots, from the vectors' typeTree ----

interface TreeNode {
  name: string
  args: Array<{ key: string | null; node: TreeNode }>
}

export function parseTypeTree(s: string): TreeNode {
  let i = 0
  const node = (): TreeNode => {
    let name = ''
    while (i < s.length && !'(),'.includes(s[i]!)) name += s[i++]
    const args: TreeNode['args'] = []
    if (s[i] === '(') {
      i++
      while (s[i] !== ')') {
        while (s[i] === ' ') i++
        if (s[i] === ')') break
        let key: string | null = null
        const eq = s.indexOf('=', i)
        const nextStop = Math.min(...[s.indexOf(',', i), s.indexOf('(', i), s.indexOf(')', i)].filter((x) => x >= 0))
        if (eq >= 0 && eq < nextStop) {
          key = s.slice(i, eq)
          i = eq + 1
        }
        args.push({ key, node: node() })
        if (s[i] === ',') i++
      }
      i++
    }
    return { name: name.trim(), args }
  }
  return node()
}

function treeDescriptor(n: TreeNode): Descriptor {
  if (n.name.endsWith('[]')) return t.array(n.name === 'Object[]' ? ANY : element(n.name.slice(0, -2)))
  switch (n.name) {
    case 'ArrayList':
      return t.list(ANY, 'java.util.ArrayList')
    case 'LinkedList':
      return t.list(ANY, 'java.util.LinkedList')
    case 'HashMap':
      return t.map(ANY, 'java.util.HashMap')
    case 'LinkedHashMap':
      return t.map(ANY, 'java.util.LinkedHashMap')
    default:
      return element(n.name)
  }
}

/** A value for an Object slot, typed from a type tree. */
function typedFromTree(v: unknown, n: TreeNode): unknown {
  if (n.name === 'null' || v === null) return null
  const d = treeDescriptor(n)
  if (d.kind === 'list' || d.kind === 'array') {
    const items = (v as unknown[]).map((x, k) =>
      n.args[k] === undefined ? guessTyped(x) : typedFromTree(x, n.args[k]!.node)
    )
    return new Typed(d, items)
  }
  if (d.kind === 'map') {
    return new Typed(
      d,
      new Map(Object.entries(v as object).map(([k, x], idx) => [k, typedFromTree(x, n.args[idx]!.node)]))
    )
  }
  return new Typed(d, fromVector(v, d))
}

/** Without a type tree: integers are Integer, strings String, {a,b} an In, {result} an Out. */
export function guessTyped(v: unknown): unknown {
  if (v === null) return null
  if (Array.isArray(v)) return new Typed(t.list(ANY, 'java.util.ArrayList'), v.map(guessTyped))
  if (typeof v === 'object') {
    const keys = Object.keys(v).sort().join(',')
    if (keys === 'a,b') return new Typed(In, fromVector(v, In))
    if (keys === 'result') return new Typed(Out, fromVector(v, Out))
    if (keys === '$long') return BigInt((v as { $long: string }).$long)
    throw new Error(`cannot guess the class of ${JSON.stringify(v)}`)
  }
  return v
}

/** The vectors' JSON description of a Java value → our JS value for descriptor d. */
export function fromVector(v: unknown, d: Descriptor, tree: TreeNode | null = null): unknown {
  if (v === null) return null
  switch (d.kind) {
    case 'scalar':
      if (d.type === 'long' || d.type === 'Long')
        return typeof v === 'object' ? BigInt((v as { $long: string }).$long) : BigInt(v as number)
      if ((d.type === 'double' || d.type === 'Double') && typeof v === 'object')
        return Number((v as { $double: string }).$double)
      return v
    case 'date':
      return new Date((v as { $date: number }).$date)
    case 'localDate':
      return new LocalDate((v as { $localDate: string }).$localDate)
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const f of d.fields) {
        const x = (v as Record<string, unknown>)[f.name]
        out[f.name] = x === undefined ? null : fromVector(x, f.type)
      }
      return out
    }
    case 'list':
    case 'array':
      return (v as unknown[]).map((x, k) => {
        const sub = tree?.args[k]?.node ?? null
        return d.item.kind === 'any'
          ? sub !== null
            ? typedFromTree(x, sub)
            : guessTyped(x)
          : fromVector(x, d.item, sub)
      })
    case 'map':
      return new Map(Object.entries(v as object).map(([k, x]) => [k, fromVector(x, d.value)]))
    case 'any':
      return tree !== null ? typedFromTree(v, tree) : guessTyped(v)
    case 'void':
      return undefined
  }
}

/** Our JS value → the vectors' JSON description, for comparison. */
export function toVector(v: unknown): unknown {
  if (v instanceof Typed) return toVector(v.value)
  if (v === null || v === undefined) return null
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : { $long: v.toString() }
  if (typeof v === 'number' && Number.isNaN(v)) return { $double: 'NaN' }
  if (v instanceof Date) return { $date: v.getTime() }
  if (v instanceof LocalDate) return { $localDate: v.iso }
  if (v instanceof Map) return Object.fromEntries([...v.entries()].map(([k, x]) => [k, toVector(x)]))
  if (Array.isArray(v)) return v.map(toVector)
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toVector(x)]))
  return v
}

/** The vectors' value with the parts we do not model removed (Date's "iso" twin of $date). */
export function cleanVector(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(cleanVector)
  if (v !== null && typeof v === 'object') {
    if ('$date' in v) return { $date: (v as { $date: number }).$date }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cleanVector(x)]))
  }
  return v
}

/**
 * The Java runtime type tree of a value read as `d`, in the vectors' notation: `Object[](In, null)`,
 * `ArrayList(ArrayList(Integer))`, `LinkedHashMap(a=Integer, b=Integer)`. Objects are named, not expanded,
 * as the vectors do. This is what tells Long from Integer, LinkedHashMap from an object, ArrayList from LinkedList.
 */
export function typeTreeOf(v: unknown, d: Descriptor): string {
  if (v === null || v === undefined) return 'null'
  if (v instanceof Typed) return typeTreeOf(v.value, v.type)
  let rt: Descriptor = d
  if (d.kind === 'any') {
    const inferred = inferType(v)
    if (inferred === null || inferred === undefined) throw new Error(`no Java type for ${String(v)} in an Object slot`)
    rt = inferred
  }
  const name = simpleName(javaClassName(rt))
  // A declared type names the Java class; the JS value must be the one that class reads into.
  if (!fitsJsShape(v, rt)) return `${name} held as a JS ${typeof v} ${Object.prototype.toString.call(v)}`
  if (rt.kind === 'list' || rt.kind === 'array') {
    const item = rt.item
    return `${name}(${(v as unknown[]).map((x) => typeTreeOf(x, item)).join(', ')})`
  }
  if (rt.kind === 'map') {
    const value = rt.value
    return `${name}(${[...(v as Map<string, unknown>).entries()].map(([k, x]) => `${k}=${typeTreeOf(x, value)}`).join(', ')})`
  }
  return name
}

function fitsJsShape(v: unknown, d: Descriptor): boolean {
  switch (d.kind) {
    case 'scalar':
      switch (d.type) {
        case 'int':
        case 'Integer':
          return typeof v === 'number' && Number.isInteger(v)
        case 'long':
        case 'Long':
          return typeof v === 'bigint'
        case 'double':
        case 'Double':
          return typeof v === 'number'
        case 'boolean':
        case 'Boolean':
          return typeof v === 'boolean'
        default:
          return typeof v === 'string'
      }
    case 'date':
      return v instanceof Date
    case 'localDate':
      return v instanceof LocalDate
    case 'list':
    case 'array':
      return Array.isArray(v)
    case 'map':
      return v instanceof Map
    case 'object':
      return typeof v === 'object' && !Array.isArray(v) && !(v instanceof Map)
    default:
      return true
  }
}
