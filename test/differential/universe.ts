// A universe of random test types: root descriptors over classes with inheritance, nested classes,
// field aliases, attributes, omitted and implicit fields (the XStream annotations descriptors
// support), class aliases and registered aliases, java.lang.Object slots listing some of the classes
// made before them (so a class never holds itself and values stay finite); and the same classes as
// Java source, so that the oracle compiles them once per universe. Made from a seed, so a failing case
// can be made again.
import {
  t,
  type Descriptor,
  type FieldInput,
  type ObjectDescriptor
} from '../../src/microservice/descriptors/descriptors'
import { SCALARS, SCRIPT_LETTERS, SCRIPT_MARKS } from '../helpers/inputs/arbitraries'

export interface Universe {
  readonly pkg: string
  readonly roots: readonly Descriptor[]
  readonly classes: ReadonlyMap<string, ObjectDescriptor>
  /** Class name → its superclass, for the Java source. */
  readonly parents: ReadonlyMap<string, ObjectDescriptor>
  /** Aliases registered on the "+aliases" setups (XStream `alias(name, class)`). */
  readonly aliases: ReadonlyMap<string, string>
  /** Compilation unit name → Java source. */
  readonly sources: Record<string, string>
}

const LETTERS = [...'abcdefghijklmnopqrstuvwxyz']
/** Letters twice as likely as digits and '_'. */
const NAME_CHARS = [...LETTERS, ...LETTERS, ...'0123456789_']
const SCRIPT_PART = [...SCRIPT_LETTERS, ...SCRIPT_MARKS]

const JAVA_KEYWORDS = new Set(
  (
    'abstract assert boolean break byte case catch char class const continue default do double else enum extends ' +
    'final finally float for goto if implements import instanceof int interface long native new package private ' +
    'protected public return short static strictfp super switch synchronized this throw throws transient try void ' +
    'volatile while true false null var record yield sealed permits'
  ).split(' ')
)

/** mulberry32: small, fast and enough to spread test shapes. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = a
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

export function makeUniverse(seed: number, rootCount: number, maxDepth = 3): Universe {
  const rng = prng(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!
  const pkg = `com.gen.u${seed >>> 0}`
  const classes = new Map<string, ObjectDescriptor>()
  const parents = new Map<string, ObjectDescriptor>()
  const aliases = new Map<string, string>()
  const pool: ObjectDescriptor[] = []
  let ids = 0

  const fieldName = (taken: Set<string>): string => {
    for (;;) {
      // A quarter of the names from many scripts (SCRIPT_LETTERS): what each family writes for them.
      const unicode = rng() < 0.25
      let n = unicode ? pick(SCRIPT_LETTERS) : pick(LETTERS)
      const len = Math.floor(rng() * 6)
      for (let i = 0; i < len; i++) n += unicode && rng() < 0.5 ? pick(SCRIPT_PART) : pick(NAME_CHARS)
      if (!JAVA_KEYWORDS.has(n) && !taken.has(n)) return n
    }
  }

  const object = (depth: number): ObjectDescriptor => {
    const parent = pool.length > 0 && rng() < 0.25 ? pick(pool) : undefined
    const id = ++ids
    const className = rng() < 0.2 ? `${pkg}.Nest$C${id}` : `${pkg}.C${id}`
    const taken = new Set(parent?.fields.map((f) => f.name) ?? [])
    const shape: Record<string, FieldInput> = {}
    const count = 1 + Math.floor(rng() * 4)
    for (let i = 0; i < count; i++) {
      const name = fieldName(taken)
      taken.add(name)
      // Object fields are where a declared Object is met most (a DTO's payload): more often than as items.
      const type = rng() < 0.12 ? slot() : descriptor(depth - 1)
      const r = rng()
      if (type.kind === 'scalar' && r < 0.25)
        shape[name] = t.field(type, { attribute: true, alias: rng() < 0.3 ? `A${name}` : undefined })
      else if (type.kind === 'list' && r < 0.35) shape[name] = t.field(type, { implicit: `I${name}` })
      else if (r < 0.45) shape[name] = t.field(type, { alias: `A${name}` })
      else if (r < 0.52) shape[name] = t.field(type, { omit: true })
      else shape[name] = type
    }
    const d = t.object(className, shape, { alias: rng() < 0.4 ? `c${id}` : undefined, extends: parent })
    classes.set(className, d)
    if (parent !== undefined) parents.set(className, parent)
    if (rng() < 0.5) aliases.set(className, `r${id}`)
    pool.push(d)
    return d
  }

  /** java.lang.Object, listing up to three classes of the pool as the ones it may hold. */
  const slot = (): Descriptor => {
    const allowed = new Set<ObjectDescriptor>()
    const n = pool.length === 0 ? 0 : Math.floor(rng() * 4)
    for (let k = 0; k < n; k++) allowed.add(pick(pool))
    return t.Object([...allowed])
  }

  const descriptor = (depth: number): Descriptor => {
    const r = rng()
    if (depth <= 0 || r < 0.35) {
      const leaf = rng()
      return leaf < 0.82 ? pick(SCALARS) : leaf < 0.89 ? t.Date : leaf < 0.96 ? t.LocalDate : slot()
    }
    if (r < 0.62) return rng() < 0.3 && pool.length > 0 ? pick(pool) : object(depth)
    if (r < 0.76)
      return t.list(
        descriptor(depth - 1),
        pick(['java.util.List', 'java.util.ArrayList', 'java.util.LinkedList'] as const)
      )
    if (r < 0.88) return t.array(descriptor(depth - 1))
    return t.map(
      descriptor(depth - 1),
      pick(['java.util.Map', 'java.util.HashMap', 'java.util.LinkedHashMap'] as const)
    )
  }

  const roots: Descriptor[] = []
  for (let i = 0; i < rootCount; i++) roots.push(i % 3 === 0 ? object(maxDepth) : descriptor(maxDepth))
  return { pkg, roots, classes, parents, aliases, sources: javaSources(classes, parents) }
}

const PRIMITIVE: Record<string, string> = {
  int: 'int',
  long: 'long',
  double: 'double',
  boolean: 'boolean',
  char: 'char'
}

/** The Java type of a field: primitives where the descriptor is one and the position allows it. */
export function javaTypeOf(d: Descriptor, boxed = false): string {
  switch (d.kind) {
    case 'scalar': {
      const p = PRIMITIVE[d.type]
      if (p !== undefined && !boxed) return p
      return `java.lang.${d.type === 'int' ? 'Integer' : d.type === 'char' ? 'Character' : d.type[0]!.toUpperCase() + d.type.slice(1)}`
    }
    case 'date':
      return 'java.util.Date'
    case 'localDate':
      return 'java.time.LocalDate'
    case 'object':
      return d.className.replace('$', '.')
    case 'list':
      return `${d.className}<${javaTypeOf(d.item, true)}>`
    case 'array':
      return `${javaTypeOf(d.item)}[]`
    case 'map':
      return `${d.className}<java.lang.String, ${javaTypeOf(d.value, true)}>`
    case 'any':
      return 'java.lang.Object'
    default:
      throw new Error(`no Java type for ${d.kind}`)
  }
}

const A = 'com.thoughtworks.xstream.annotations'

function classSource(d: ObjectDescriptor, parent: ObjectDescriptor | undefined, nested: boolean): string {
  const own = d.fields.slice(parent?.fields.length ?? 0)
  const simple = d.className.slice(d.className.lastIndexOf(nested ? '$' : '.') + 1)
  const lines = own.map((f) => {
    const notes: string[] = []
    if (f.attribute) notes.push(`@${A}.XStreamAsAttribute`)
    if (f.alias !== undefined) notes.push(`@${A}.XStreamAlias("${f.alias}")`)
    if (f.omit) notes.push(`@${A}.XStreamOmitField`)
    if (f.implicit !== undefined) notes.push(`@${A}.XStreamImplicit(itemFieldName = "${f.implicit}")`)
    return `  ${notes.join(' ')} public ${javaTypeOf(f.type)} ${f.name};`
  })
  const head = [
    d.alias === undefined ? '' : `@${A}.XStreamAlias("${d.alias}") `,
    `public ${nested ? 'static ' : ''}class ${simple}`,
    parent === undefined ? '' : ` extends ${parent.className.replace('$', '.')}`
  ].join('')
  return `${head} {\n${lines.join('\n')}\n}\n`
}

export function javaSources(
  classes: ReadonlyMap<string, ObjectDescriptor>,
  parents: ReadonlyMap<string, ObjectDescriptor>
): Record<string, string> {
  const sources: Record<string, string> = {}
  const nested: string[] = []
  let pkg = ''
  for (const [name, d] of classes) {
    pkg = name.slice(0, name.lastIndexOf('.'))
    if (name.includes('$')) nested.push(classSource(d, parents.get(name), true))
    else sources[name] = `package ${pkg};\n${classSource(d, parents.get(name), false)}`
  }
  if (nested.length > 0) sources[`${pkg}.Nest`] = `package ${pkg};\npublic class Nest {\n${nested.join('\n')}}\n`
  return sources
}
