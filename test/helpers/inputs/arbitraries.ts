// Random descriptors and values for the serializers' property tests, per serializer family: where a
// format cannot carry something (and the Java library it mirrors cannot either), the generator
// leaves it out; PROFILES says what and why.
import fc from 'fast-check'
import {
  t,
  inferType,
  LocalDate,
  Typed,
  type AnyDescriptor,
  type Descriptor,
  type FieldInput,
  type ScalarDescriptor
} from '../../../src/microservice/descriptors/descriptors'
import type { SerializerBeanName } from '../../../src/common/contract/vocabulary'

export interface Profile {
  /** Characters a string may hold. */
  char: (c: string) => boolean
  localDate: boolean
  /** Null items inside lists, arrays and maps. */
  nullItems: boolean
  /** Null Strings, Characters, objects and maps as field values. */
  nullTextFields: boolean
  nestedLists: boolean
  /** Map keys must be XML names. */
  xmlKeys: boolean
  /** Empty lists and arrays of String (Jackson XML cannot read its own <Strings/> back). */
  emptyStringLists?: boolean
  /** -0.0 (Jettison writes it -0, which XStream reads back as +0.0). */
  negativeZero?: boolean
  /** Strings, characters and map keys from these instead of the default generators (the oracle's). */
  text?: fc.Arbitrary<string>
  char1?: fc.Arbitrary<string>
  key?: fc.Arbitrary<string>
  /** Dates from this generator instead of the years 1000 to 9999 (the oracle's: the whole range Java writes). */
  date?: fc.Arbitrary<Date>
}

const noSurrogate = (c: string): boolean => !/[\ud800-\udfff]/.test(c)

/**
 * What Jackson's XML round trip carries: Woodstox refuses the C0 controls, and writes U+FFFE and U+FFFF
 * as references (&#xfffe;) that no XML 1.0 reader, its own included, reads back.
 */
const xmlSafe = (c: string): boolean =>
  noSurrogate(c) && !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(c)

export const PROFILES: Record<SerializerBeanName, Profile> = {
  // XStream writes controls as character references; NUL cannot be one.
  alphaXmlSerializer: {
    char: (c) => noSurrogate(c) && c !== '\u0000',
    localDate: true,
    nullItems: true,
    nullTextFields: true,
    nestedLists: true,
    xmlKeys: false
  },
  // Jettison groups a collection's children by element name, so a null item (<null/>) among
  // others moves: Java loses that order the same way.
  alphaJsonSerializer: {
    char: (c) => noSurrogate(c) && c !== '\u0000',
    negativeZero: false,
    localDate: true,
    nullItems: false,
    nullTextFields: true,
    nestedLists: true,
    xmlKeys: false
  },
  // Jackson cannot write LocalDate without the jsr310 module.
  betaJsonSerializer: {
    char: noSurrogate,
    localDate: false,
    nullItems: true,
    nullTextFields: true,
    nestedLists: true,
    xmlKeys: false
  },
  // Woodstox refuses control characters and cannot read back U+FFFE and U+FFFF (xmlSafe); a null
  // String, Date, object or map field is written <x/> and read back as "", the epoch or an empty one; a
  // list inside a list or a map is flattened; map keys become element names.
  betaXmlSerializer: {
    char: xmlSafe,
    // A Character of only whitespace is read back as null (Jackson XML drops whitespace-only text).
    char1: fc
      .string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 })
      .filter((c) => xmlSafe(c) && !/[ \t\n\r]/.test(c)),
    localDate: false,
    nullItems: false,
    nullTextFields: false,
    nestedLists: false,
    xmlKeys: true,
    emptyStringLists: false
  }
}

/**
 * Characters a Java identifier may begin with, from many scripts: Latin, Greek, Cyrillic, Armenian,
 * Hebrew, Arabic, Indic, Thai, Georgian, Ethiopic, Cherokee, Hangul, kana, CJK (an astral one too),
 * a letterlike symbol, currency signs and a connector (Java takes both first), and astral letters.
 * Some are XML 1.0 (4th edition) name characters and some are not, which is the point.
 */
export const SCRIPT_LETTERS: readonly string[] = [
  ...'äßéøñçÆŒƒǅλΩάжЖёաאשعبکकনகกขაሀᎠᐁ한글ひらカナ名前字ẞℵ¢£€‿',
  '\u{1d49c}',
  '\u{10330}',
  '\u{20000}',
  '\u{1e900}'
]

/** What a Java identifier may hold after its first character beyond letters: marks and digits of other scripts. */
export const SCRIPT_MARKS: readonly string[] = [...'\u0301\u0308\u093f\u0e31٣५๓３', '\u{1d7d8}']

/** A Java identifier of letters, marks and digits of many scripts (as a field name, a map key). */
export const scriptIdentifier: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(...SCRIPT_LETTERS),
    fc.array(fc.constantFrom(...SCRIPT_LETTERS, ...SCRIPT_MARKS, 'a', '1', '_'), { maxLength: 4 })
  )
  .map(([first, rest]) => first + rest.join(''))

/** A word of many scripts, with the punctuation and spaces a map key may hold that no identifier does. */
export const scriptKey: fc.Arbitrary<string> = fc
  .array(fc.constantFrom(...SCRIPT_LETTERS, ...SCRIPT_MARKS, '·', '-', '.', ' ', '؟', '、', '!', ':', '\u{1f600}'), {
    minLength: 1,
    maxLength: 5
  })
  .map((cs) => cs.join(''))

/** Every scalar kind a descriptor has. */
export const SCALARS: readonly ScalarDescriptor[] = [
  t.int,
  t.Integer,
  t.long,
  t.Long,
  t.double,
  t.Double,
  t.boolean,
  t.Boolean,
  t.char,
  t.Character,
  t.String
]
let classIds = 0

export function descriptorArb(p: Profile, depth: number): fc.Arbitrary<Descriptor> {
  const leaves: Array<fc.Arbitrary<Descriptor>> = [
    fc.constantFrom<Descriptor>(...SCALARS),
    fc.constant<Descriptor>(t.Date)
  ]
  if (p.localDate) leaves.push(fc.constant<Descriptor>(t.LocalDate))
  if (depth <= 0) return fc.oneof(...leaves)
  const inner = descriptorArb(p, depth - 1)
  const listItem = p.nestedLists ? inner : inner.filter((d) => d.kind !== 'list' && d.kind !== 'array')
  return fc.oneof(
    { weight: 3, arbitrary: fc.oneof(...leaves) },
    {
      weight: 2,
      arbitrary: fc
        .uniqueArray(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/), inner), {
          minLength: 1,
          maxLength: 4,
          selector: (f) => f[0]
        })
        .chain((fields) =>
          fc.boolean().map((aliased) => {
            const id = ++classIds
            return t.object(
              `com.gen.C${id}`,
              Object.fromEntries(fields) as Record<string, FieldInput>,
              aliased ? { alias: `c${id}` } : {}
            )
          })
        )
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          listItem,
          fc.constantFrom(
            'java.util.List',
            'java.util.ArrayList',
            'java.util.LinkedList'
          ) as fc.Arbitrary<'java.util.List'>
        )
        .map(([i, c]) => t.list(i, c))
    },
    { weight: 1, arbitrary: listItem.map((i) => t.array(i)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          // Jackson XML writes a list as a map value unwrapped, as it does inside a list.
          listItem,
          fc.constantFrom('java.util.HashMap', 'java.util.LinkedHashMap') as fc.Arbitrary<'java.util.HashMap'>
        )
        .map(([v, c]) => t.map(v, c))
    }
  )
}

const INT32 = fc.integer({ min: -2147483648, max: 2147483647 })
const LONG = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })

/**
 * How many containers and classes deep a value inside Object slots goes: a list in a slot holds
 * slots again, and a class in a slot may have slots of its own.
 */
const SLOT_DEPTH = 2

function keyArb(p: Profile): fc.Arbitrary<string> {
  return (
    p.key ??
    (p.xmlKeys
      ? fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/)
      : fc.string({ unit: 'binary', maxLength: 6 }).filter((s) => [...s].every(p.char)))
  )
}

/**
 * A value for a java.lang.Object slot, as a method returns one: the built-in value types (a double
 * that looks integral and a Character typed so, since inference would make them an Integer and a
 * String), instances of the slot's classes typed with their class, and, while `depth` lasts, the
 * collections the serializers know by name holding slots again: ArrayList (a JS array), LinkedList,
 * LinkedHashMap (a JS Map), HashMap, Object[] and arrays of the slot's classes.
 */
function slotArb(d: AnyDescriptor, p: Profile, depth: number): fc.Arbitrary<unknown> {
  const str = p.text ?? fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => [...s].every(p.char))
  const classes = d.allowed.filter((a) => a.kind === 'object')
  const choices: Array<fc.WeightedArbitrary<unknown>> = [
    { weight: 2, arbitrary: INT32 },
    { weight: 1, arbitrary: LONG },
    {
      weight: 1,
      arbitrary: fc
        .double()
        .filter((x) => p.negativeZero !== false || !Object.is(x, -0))
        .map((x) => (inferType(x) === t.Double ? x : t.typed(t.Double, x)))
    },
    { weight: 1, arbitrary: fc.boolean() },
    {
      weight: 1,
      arbitrary: (p.char1 ?? fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }).filter(p.char)).map(
        (c) => t.typed(t.Character, c)
      )
    },
    { weight: 2, arbitrary: str },
    { weight: 1, arbitrary: valueArb(t.Date, p, false).filter((x) => x !== null) }
  ]
  if (p.localDate) choices.push({ weight: 1, arbitrary: valueArb(t.LocalDate, p, false).filter((x) => x !== null) })
  if (depth <= 0) return fc.oneof(...choices)
  for (const c of classes)
    choices.push({ weight: 3, arbitrary: valueArb(c, p, false, depth - 1).map((v) => t.typed(c, v)) })
  const inner = t.Object(d.allowed)
  const item = valueArb(inner, p, false, depth - 1).filter((x) => p.nullItems || x !== null)
  const items = fc.array(item, { maxLength: 4 })
  const entries = fc.dictionary(keyArb(p), item, { maxKeys: 4 }).map((o) => new Map(Object.entries(o)))
  choices.push(
    { weight: 1, arbitrary: items },
    { weight: 1, arbitrary: items.map((v) => t.typed(t.list(inner, 'java.util.LinkedList'), v)) },
    { weight: 1, arbitrary: entries },
    { weight: 1, arbitrary: entries.map((v) => t.typed(t.map(inner, 'java.util.HashMap'), v)) },
    { weight: 1, arbitrary: items.map((v) => t.typed(t.array(inner), v)) }
  )
  for (const c of classes) {
    const instances = fc.array(
      valueArb(c, p, false, depth - 1).filter((x) => p.nullItems || x !== null),
      { maxLength: 3 }
    )
    choices.push({ weight: 1, arbitrary: instances.map((v) => t.typed(t.array(c), v)) })
  }
  return fc.oneof(...choices)
}

/** `slotDepth`: what is left of SLOT_DEPTH for Object slots inside this value. */
export function valueArb(d: Descriptor, p: Profile, asField: boolean, slotDepth = SLOT_DEPTH): fc.Arbitrary<unknown> {
  const str = p.text ?? fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => [...s].every(p.char))
  const withNull = (a: fc.Arbitrary<unknown>, nullable: boolean): fc.Arbitrary<unknown> =>
    nullable ? fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: a }) : a
  switch (d.kind) {
    case 'scalar': {
      const text = d.type === 'String' || d.type === 'Character'
      const nullable = d.type !== d.type.toLowerCase() && !(text && asField && !p.nullTextFields)
      switch (d.type) {
        case 'int':
        case 'Integer':
          return withNull(INT32, nullable)
        case 'long':
        case 'Long':
          return withNull(LONG, nullable)
        case 'double':
        case 'Double':
          return withNull(
            fc.double().filter((x) => p.negativeZero !== false || !Object.is(x, -0)),
            nullable
          )
        case 'boolean':
        case 'Boolean':
          return withNull(fc.boolean(), nullable)
        case 'char':
        case 'Character':
          return withNull(
            p.char1 ?? fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }).filter(p.char),
            nullable
          )
        default:
          return withNull(str, nullable)
      }
    }
    case 'date':
      // beta XML writes a null Date field as <x/>, which Jackson reads back as the epoch.
      return withNull(
        p.date ??
          fc.date({
            min: new Date('1000-01-01T00:00:00Z'),
            max: new Date('9999-12-31T23:59:59Z'),
            noInvalidDate: true
          }),
        !(asField && !p.nullTextFields)
      )
    case 'localDate':
      return withNull(
        fc
          .date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
          .map((x) => new LocalDate(x.toISOString().slice(0, 10))),
        true
      )
    case 'object':
      return withNull(
        fc.record(Object.fromEntries(d.fields.map((f) => [f.name, valueArb(f.type, p, true, slotDepth)]))),
        !(asField && !p.nullTextFields)
      )
    case 'list':
    case 'array': {
      const strings = d.item.kind === 'scalar' && d.item.type === 'String'
      const items = fc.array(
        valueArb(d.item, p, false, slotDepth).filter((x) => p.nullItems || x !== null),
        { maxLength: 4, minLength: strings && p.emptyStringLists === false ? 1 : 0 }
      )
      // A null char[] field is written as an empty element in beta XML, read back as an empty one.
      const charArray = d.kind === 'array' && d.item.kind === 'scalar' && d.item.type === 'char'
      return withNull(items, !(charArray && asField && !p.nullTextFields))
    }
    case 'map': {
      // Map values are collection items too: null ones follow the nullItems rule.
      const value = valueArb(d.value, p, false, slotDepth).filter((x) => p.nullItems || x !== null)
      return withNull(
        fc.dictionary(keyArb(p), value, { maxKeys: 4 }).map((o) => new Map(Object.entries(o))),
        !(asField && !p.nullTextFields)
      )
    }
    case 'any':
      return withNull(slotArb(d, p, slotDepth), !(asField && !p.nullTextFields))
    default:
      return fc.constant(null)
  }
}

/** A canonical form for comparison: HashMaps compared without order, NaN and -0 kept. */
export function canon(v: unknown, d: Descriptor): unknown {
  const x = v instanceof Typed ? v.value : v
  if (x === null || x === undefined) return null
  switch (d.kind) {
    case 'scalar':
      if (typeof x === 'number') return Number.isNaN(x) ? 'NaN' : Object.is(x, -0) ? '-0' : x
      if (typeof x === 'bigint') return `${x}n`
      return x
    case 'date':
      return { date: (x as Date).getTime() }
    case 'localDate':
      return { localDate: (x as LocalDate).iso }
    case 'object':
      return Object.fromEntries(d.fields.map((f) => [f.name, canon((x as Record<string, unknown>)[f.name], f.type)]))
    case 'list':
    case 'array':
      return (x as unknown[]).map((i) => canon(i, d.item))
    case 'map': {
      const entries = [...(x as Map<string, unknown>).entries()].map(([k, i]) => [k, canon(i, d.value)] as const)
      if (d.className !== 'java.util.LinkedHashMap') entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      return entries
    }
    default:
      return x
  }
}
