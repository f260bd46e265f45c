/**
 * Runtime type descriptors: the one description of a parameter or return type that feeds
 * deserialization, serialization, argument-count checks and the API description.
 *
 * Values: int/Integer/double/Double → number; long/Long → bigint (all 64 bits, never a rounded
 * double); boolean → boolean; char → a one-unit string; String → string; Date → Date;
 * LocalDate → LocalDate; objects → plain objects holding the declared fields; lists and arrays →
 * arrays; maps (String keys) → Map; Object → any of these, typed by inference or by `t.typed`.
 * Boxed types, objects and containers admit null; primitives do not.
 *
 * Why not a JSON-Schema library (TypeBox) as the source: see docs/descriptors.md.
 */

import { isAbsolute, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

export type ScalarType =
  'int' | 'Integer' | 'long' | 'Long' | 'double' | 'Double' | 'boolean' | 'Boolean' | 'char' | 'Character' | 'String'

export interface ScalarDescriptor<T extends ScalarType = ScalarType> {
  readonly kind: 'scalar'
  readonly type: T
}

export interface DateDescriptor {
  readonly kind: 'date'
}
export interface LocalDateDescriptor {
  readonly kind: 'localDate'
}

/** XStream annotation equivalents of a field. */
export interface FieldOptions {
  /** @XStreamAsAttribute: written as an attribute of the object's element (scalars only). */
  attribute?: boolean
  /** @XStreamAlias on the field: its element (or attribute) name. */
  alias?: string
  /** @XStreamOmitField: never written, ignored when read. */
  omit?: boolean
  /** @XStreamImplicit(itemFieldName): a list written as repeated elements of this name, no wrapper. */
  implicit?: string
}

export interface FieldDescriptor {
  readonly name: string
  readonly type: Descriptor
  readonly attribute: boolean
  readonly alias: string | undefined
  readonly omit: boolean
  readonly implicit: string | undefined
}

export interface ObjectDescriptor<F extends Record<string, FieldInput> = Record<string, FieldInput>> {
  readonly kind: 'object'
  /** Java class name, e.g. com.example.In; nested classes use '$' (com.example.Container$Inner). */
  readonly className: string
  /** Fields in declaration order, superclass fields first. */
  readonly fields: readonly FieldDescriptor[]
  readonly shape: F
  /** Alias registered on the alpha serializers (XStream `alias` / @XStreamAlias on the class). */
  readonly alias: string | undefined
}

/** Java class of a list: the interface (runtime ArrayList) or a concrete class. */
export type ListClass =
  | 'java.util.List'
  | 'java.util.ArrayList'
  | 'java.util.LinkedList'
  | 'java.util.Arrays$ArrayList'
  | 'java.util.ImmutableCollections$ListN'

export interface ListDescriptor<I extends Descriptor = Descriptor> {
  readonly kind: 'list'
  readonly item: I
  readonly className: ListClass
}

/** A Java array, e.g. Integer[] or Object[] (the RMC parameter array). */
export interface ArrayDescriptor<I extends Descriptor = Descriptor> {
  readonly kind: 'array'
  readonly item: I
}

export type MapClass = 'java.util.Map' | 'java.util.HashMap' | 'java.util.LinkedHashMap'

/** A map with String keys. */
export interface MapDescriptor<V extends Descriptor = Descriptor> {
  readonly kind: 'map'
  readonly value: V
  readonly className: MapClass
}

/**
 * java.lang.Object: the runtime type decides how a value is written. Built-in value types are
 * always accepted when reading; classes only when listed in `allowed`, so a client can never make
 * the microservice build a type the method did not declare.
 */
export interface AnyDescriptor {
  readonly kind: 'any'
  readonly allowed: readonly Descriptor[]
}

export interface VoidDescriptor {
  readonly kind: 'void'
}

export type Descriptor =
  | ScalarDescriptor
  | DateDescriptor
  | LocalDateDescriptor
  | ObjectDescriptor
  | ListDescriptor
  | ArrayDescriptor
  | MapDescriptor
  | AnyDescriptor
  | VoidDescriptor

/** A field given with options: `t.field(t.Integer, { attribute: true })`. */
export interface FieldSpec<D extends Descriptor = Descriptor> {
  readonly kind: 'field'
  readonly type: D
  readonly options: FieldOptions
}

export type FieldInput = Descriptor | FieldSpec

/** java.time.LocalDate: a date without time zone. */
export class LocalDate {
  readonly iso: string
  constructor(iso: string) {
    if (!LocalDate.isIso(iso)) throw new TypeError(`'${iso}' is not a date of the form YYYY-MM-DD`)
    this.iso = iso
  }

  /** Whether the text is a date of the form YYYY-MM-DD that exists. */
  static isIso(iso: string): boolean {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso)
    const d = m === null ? null : new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
    return d !== null && d.toISOString().slice(0, 10) === iso
  }

  toString(): string {
    return this.iso
  }
  toJSON(): string {
    return this.iso
  }
}

/** A value whose runtime type is given explicitly (an In in an Object slot, a LinkedList in a List field). */
export class Typed<T = unknown> {
  constructor(
    readonly type: Descriptor,
    readonly value: T
  ) {}
}

type ScalarValue<T extends ScalarType> = T extends 'int' | 'double'
  ? number
  : T extends 'Integer' | 'Double'
    ? number | null
    : T extends 'long'
      ? bigint
      : T extends 'Long'
        ? bigint | null
        : T extends 'boolean'
          ? boolean
          : T extends 'Boolean'
            ? boolean | null
            : T extends 'char'
              ? string
              : string | null

type FieldType<F> = F extends FieldSpec<infer D> ? D : F

/** The TypeScript type of values described by D. */
export type Infer<D> =
  D extends ScalarDescriptor<infer T>
    ? ScalarValue<T>
    : D extends DateDescriptor
      ? Date | null
      : D extends LocalDateDescriptor
        ? LocalDate | null
        : D extends ObjectDescriptor<infer F>
          ? { [K in keyof F]: Infer<FieldType<F[K]>> } | null
          : D extends ListDescriptor<infer I>
            ? Array<Infer<I>> | null
            : D extends ArrayDescriptor<infer I>
              ? Array<Infer<I>> | null
              : D extends MapDescriptor<infer V>
                ? Map<string, Infer<V>> | null
                : D extends AnyDescriptor
                  ? unknown
                  : D extends VoidDescriptor
                    ? void
                    : never

export type InferTuple<P extends readonly Descriptor[]> = { [K in keyof P]: Infer<P[K]> }

function scalar<T extends ScalarType>(type: T): ScalarDescriptor<T> {
  return Object.freeze({ kind: 'scalar', type })
}

export interface ObjectOptions {
  alias?: string
  /** Superclass: its fields come first, as Java writes them. */
  extends?: ObjectDescriptor
}

// Keyed by the union, so TypeScript says when a class is added to one and not the other.
const LIST_CLASSES: ReadonlySet<unknown> = new Set(
  Object.keys({
    'java.util.List': 0,
    'java.util.ArrayList': 0,
    'java.util.LinkedList': 0,
    'java.util.Arrays$ArrayList': 0,
    'java.util.ImmutableCollections$ListN': 0
  } satisfies Record<ListClass, 0>)
)
const MAP_CLASSES: ReadonlySet<unknown> = new Set(
  Object.keys({
    'java.util.Map': 0,
    'java.util.HashMap': 0,
    'java.util.LinkedHashMap': 0
  } satisfies Record<MapClass, 0>)
)

const quoted = (names: ReadonlySet<unknown>): string => [...names].map((n) => `'${String(n)}'`).join(' | ')

/**
 * Each factory of `t` as its refusals state it, with an example; docs/descriptors.md lists the same
 * text, and test/unit/microservice/descriptors/descriptor-signatures.test.ts keeps the two equal.
 */
const SIGNATURES = {
  object: {
    signature:
      't.object(className: string, shape: { [field: string]: Descriptor | FieldSpec }, options?: { alias?: string, extends?: ObjectDescriptor })',
    example: "t.object('com.example.In', { a: t.Integer, b: t.Integer })"
  },
  field: {
    signature:
      't.field(type: Descriptor, options: { attribute?: boolean, alias?: string, omit?: boolean, implicit?: string })',
    example: "t.field(t.String, { alias: 'label' })"
  },
  list: { signature: `t.list(item: Descriptor, className?: ${quoted(LIST_CLASSES)})`, example: 't.list(t.String)' },
  array: { signature: 't.array(item: Descriptor)', example: 't.array(t.Integer)' },
  map: { signature: `t.map(value: Descriptor, className?: ${quoted(MAP_CLASSES)})`, example: 't.map(t.Integer)' },
  Object: { signature: 't.Object(allowed?: Descriptor[])', example: 't.Object()' },
  typed: {
    signature: 't.typed(type: Descriptor, value: unknown)',
    example: "t.typed(t.list(t.Integer, 'java.util.LinkedList'), [1, 2])"
  }
} as const

type Factory = keyof typeof SIGNATURES

const KINDS: ReadonlySet<unknown> = new Set<Descriptor['kind']>([
  'scalar',
  'date',
  'localDate',
  'object',
  'list',
  'array',
  'map',
  'any',
  'void'
])

// By kind alone: descriptors are plain data and may come from another copy of this module.
function isDescriptor(v: unknown): v is Descriptor {
  return typeof v === 'object' && v !== null && KINDS.has((v as { kind?: unknown }).kind)
}

function isFieldSpec(v: unknown): v is FieldSpec {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'field'
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  const proto: unknown = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

/** Why `v`, given as `name`, cannot be the type of a value (a parameter, item, field); undefined when it can. */
function notAType(name: string, v: unknown): string | undefined {
  if (isDescriptor(v)) return v.kind === 'void' ? `${name} is t.void, which only a method's returns can be` : undefined
  if (v === undefined)
    return `${name} is missing, or undefined where a descriptor was meant (used before it was defined?)`
  const factory = FACTORIES.get(v)
  if (factory !== undefined) return `${name} is t.${factory}, a factory: call it, e.g. ${SIGNATURES[factory].example}`
  return `${name} is ${shown(v)}, not a descriptor such as t.String, t.object(…) or t.list(…)`
}

function notOneOf(name: string, v: unknown, names: ReadonlySet<unknown>): string | undefined {
  if (v === undefined || names.has(v)) return undefined
  return `${name} is ${shown(v)}, not one of those classes`
}

function tooMany(extra: unknown, max: number): string | undefined {
  return extra === undefined ? undefined : `it takes ${max === 1 ? 'one argument' : `at most ${max} arguments`}`
}

/** Each option's test and what it must be; `options` itself may be left out unless `required`. */
type OptionSpec = Record<string, readonly [(v: unknown) => boolean, string]>

const isString = (v: unknown): boolean => typeof v === 'string'
const isBoolean = (v: unknown): boolean => typeof v === 'boolean'
const OBJECT_OPTIONS: OptionSpec = {
  alias: [isString, 'a string'],
  extends: [(v) => isDescriptor(v) && v.kind === 'object', 'the superclass, a t.object(…)']
}
const FIELD_OPTIONS: OptionSpec = {
  attribute: [isBoolean, 'true or false'],
  alias: [isString, 'a string'],
  omit: [isBoolean, 'true or false'],
  implicit: [isString, 'a string, the name of each item element']
}

function optionsProblem(v: unknown, spec: OptionSpec, required: boolean): string | undefined {
  if (v === undefined) return required ? 'options is missing: give {} for none' : undefined
  if (!isPlainObject(v)) return `options is ${shown(v)}, not an object such as { ${Object.keys(spec)[0]}: … }`
  for (const [key, value] of Object.entries(v)) {
    const option = Object.hasOwn(spec, key) ? spec[key] : undefined
    if (option === undefined) return `options.${key} is not an option; the options are ${Object.keys(spec).join(', ')}`
    if (value !== undefined && !option[0](value)) return `options.${key} is ${shown(value)}, not ${option[1]}`
  }
  return undefined
}

function shapeProblem(shape: unknown): string | undefined {
  if (!isPlainObject(shape) || isDescriptor(shape) || isFieldSpec(shape))
    return `shape is ${shown(shape)}, not an object of fields such as { a: t.Integer }`
  for (const [name, input] of Object.entries(shape)) {
    const problem = isFieldSpec(input) ? notAType(`field ${name}`, input.type) : notAType(`field ${name}`, input)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** An argument as the author would have written it: `t.Integer`, `'java.util.Map'`, `5`, `{ a, b }`. */
function shown(v: unknown, depth = 0): string {
  if (typeof v === 'string') return `'${v.length > 40 ? `${v.slice(0, 40)}…` : v}'`
  if (typeof v === 'bigint') return `${v}n`
  if (typeof v === 'function') {
    const factory = FACTORIES.get(v)
    return factory !== undefined ? `t.${factory}` : v.name === '' ? 'a function' : `function ${v.name}`
  }
  if (typeof v !== 'object' || v === null) return String(v)
  const inner = (x: unknown): string => (depth < 2 ? shown(x, depth + 1) : '…')
  if (isDescriptor(v)) return shownDescriptor(v, inner)
  if (isFieldSpec(v)) return `t.field(${inner(v.type)}, {…})`
  if (Array.isArray(v)) return `[${v.slice(0, 3).map(inner).join(', ')}${v.length > 3 ? ', …' : ''}]`
  if (!isPlainObject(v)) return `a ${(v as { constructor?: { name?: string } }).constructor?.name ?? 'object'}`
  const keys = Object.keys(v)
  return keys.length === 0 ? '{}' : `{ ${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ', …' : ''} }`
}

function shownDescriptor(d: Descriptor, inner: (x: unknown) => string): string {
  switch (d.kind) {
    case 'scalar':
      return `t.${d.type}`
    case 'date':
      return 't.Date'
    case 'localDate':
      return 't.LocalDate'
    case 'void':
      return 't.void'
    case 'object':
      return `t.object('${d.className}', …)`
    case 'list':
      return `t.list(${inner(d.item)}${d.className === 'java.util.List' ? '' : `, '${d.className}'`})`
    case 'array':
      return `t.array(${inner(d.item)})`
    case 'map':
      return `t.map(${inner(d.value)}${d.className === 'java.util.Map' ? '' : `, '${d.className}'`})`
    case 'any':
      return Array.isArray(d.allowed) && d.allowed.length > 0 ? 't.Object([…])' : 't.Object()'
  }
}

const SDK_DIR = __dirname + sep

/**
 * Where the author called `fn`: the first frame below it outside the SDK's own files and Node's, as
 * `file:line:column`. Frames above `fn` are cut first, so a source-mapped SDK frame cannot be taken
 * for the author's.
 */
function callerPlace(fn: (...args: never[]) => unknown): string | undefined {
  const frames: { stack?: string } = {}
  const limit = Error.stackTraceLimit
  // An author's Error.stackTraceLimit = 0 would leave no frame to name.
  Error.stackTraceLimit = Math.max(limit, 16)
  try {
    Error.captureStackTrace(frames, fn)
  } finally {
    Error.stackTraceLimit = limit
  }
  for (const line of (frames.stack ?? '').split('\n')) {
    const l = line.trim()
    if (!l.startsWith('at ')) continue
    // `at name (place)`, where the first ' (' ends the name, or `at place` (which may hold ' (' itself).
    const at = /^(.+):(\d+):(\d+)$/.exec(l.endsWith(')') ? l.slice(l.indexOf(' (') + 2, -1) : l.slice(3))
    if (at === null) continue
    const file = at[1]!.startsWith('file://') ? fileURLToPath(at[1]!) : at[1]!
    // node:internal/…, <anonymous>, eval frames and the SDK itself are not the author's place.
    if (isAbsolute(file) && !file.startsWith(SDK_DIR)) return `${file}:${at[2]}:${at[3]}`
  }
  return undefined
}

/** A TypeError for a mistake in the author's call of `fn`, ending with its place. */
function placed(message: string, fn: (...args: never[]) => unknown): TypeError {
  const place = callerPlace(fn)
  const err = new TypeError(place === undefined ? message : `${message} (at ${place})`)
  Error.captureStackTrace(err, fn)
  return err
}

/** `t.map(t.String, t.Integer): expected t.map(value: …), e.g. t.map(t.Integer); className is … (at /…/m.js:3:18)` */
function refusal(factory: Factory, args: readonly unknown[], problem: string): TypeError {
  let given = args.length
  while (given > 0 && args[given - 1] === undefined) given--
  const { signature, example } = SIGNATURES[factory]
  const call = args.slice(0, given).map((a) => shown(a))
  return placed(
    `t.${factory}(${call.join(', ')}): expected ${signature}, e.g. ${example}; ${problem}`,
    FUNCTIONS[factory]
  )
}

function toField(name: string, input: FieldInput, owner: string): FieldDescriptor {
  const spec: FieldSpec = input.kind === 'field' ? input : { kind: 'field', type: input, options: {} }
  const o = spec.options
  // Values are plain objects: a field by this name would set their prototype instead.
  if (name === '__proto__') throw placed(`${owner}.${name}: this field name is reserved in JavaScript`, object)
  if (o.attribute === true && spec.type.kind !== 'scalar')
    throw placed(`${owner}.${name}: only scalar fields can be attributes`, object)
  if (o.implicit !== undefined && spec.type.kind !== 'list')
    throw placed(`${owner}.${name}: only list fields can be implicit`, object)
  return Object.freeze({
    name,
    type: spec.type,
    attribute: o.attribute === true,
    alias: o.alias,
    omit: o.omit === true,
    implicit: o.implicit
  })
}

// Each factory checks its arguments when called: a plain-JS author meets a wrong call where it is
// written, not later as a stray TypeError of the serializers or the API description.

/** A Java class: `t.object('com.example.In', { a: t.Integer, b: t.Integer }, { alias: 'in' })`. */
function object<F extends Record<string, FieldInput>>(
  className: string,
  shape: F,
  options?: ObjectOptions
): ObjectDescriptor<F>
function object(className: unknown, shape: unknown, options?: unknown, extra?: unknown): ObjectDescriptor {
  const problem =
    (typeof className === 'string' && className !== ''
      ? undefined
      : `className is ${shown(className)}, not a Java class name such as 'com.example.In'`) ??
    shapeProblem(shape) ??
    optionsProblem(options, OBJECT_OPTIONS, false) ??
    tooMany(extra, 3)
  if (problem !== undefined) throw refusal('object', [className, shape, options, extra], problem)
  const name = className as string
  const fields = shape as Record<string, FieldInput>
  const o = (options ?? {}) as ObjectOptions
  const inherited = o.extends?.fields ?? []
  const own = Object.entries(fields).map(([field, input]) => toField(field, input, name))
  for (const f of own) {
    if (inherited.some((g) => g.name === f.name)) throw placed(`${name}.${f.name} hides a superclass field`, object)
  }
  return Object.freeze({
    kind: 'object',
    className: name,
    fields: Object.freeze([...inherited, ...own]),
    shape: fields,
    alias: o.alias
  })
}

/** A field with XStream's annotations: `t.field(t.Integer, { attribute: true })`. */
function field<D extends Descriptor>(type: D, options: FieldOptions): FieldSpec<D>
function field(type: unknown, options: unknown, extra?: unknown): FieldSpec {
  const problem = notAType('type', type) ?? optionsProblem(options, FIELD_OPTIONS, true) ?? tooMany(extra, 2)
  if (problem !== undefined) throw refusal('field', [type, options, extra], problem)
  return Object.freeze({ kind: 'field', type: type as Descriptor, options: Object.freeze({ ...(options as object) }) })
}

/** A list: `t.list(t.String)`, or of a given class: `t.list(t.String, 'java.util.LinkedList')`. */
function list<I extends Descriptor>(item: I, className?: ListClass): ListDescriptor<I>
function list(item: unknown, className?: unknown, extra?: unknown): ListDescriptor {
  const problem = notAType('item', item) ?? notOneOf('className', className, LIST_CLASSES) ?? tooMany(extra, 2)
  if (problem !== undefined) throw refusal('list', [item, className, extra], problem)
  return Object.freeze({
    kind: 'list',
    item: item as Descriptor,
    className: (className ?? 'java.util.List') as ListClass
  })
}

/** A Java array: `t.array(t.Integer)` is Integer[]. */
function array<I extends Descriptor>(item: I): ArrayDescriptor<I>
function array(item: unknown, extra?: unknown): ArrayDescriptor {
  const problem = notAType('item', item) ?? tooMany(extra, 1)
  if (problem !== undefined) throw refusal('array', [item, extra], problem)
  return Object.freeze({ kind: 'array', item: item as Descriptor })
}

/** A map with String keys, given its value type: `t.map(t.Integer)` is Map<String,Integer>. */
function map<V extends Descriptor>(value: V, className?: MapClass): MapDescriptor<V>
function map(value: unknown, className?: unknown, extra?: unknown): MapDescriptor {
  const problem =
    notAType('value', value) ??
    (isDescriptor(className)
      ? `className is ${shown(className)}: a map's keys are always String, so give only its value type`
      : notOneOf('className', className, MAP_CLASSES)) ??
    tooMany(extra, 2)
  if (problem !== undefined) throw refusal('map', [value, className, extra], problem)
  return Object.freeze({
    kind: 'map',
    value: value as Descriptor,
    className: (className ?? 'java.util.Map') as MapClass
  })
}

/** java.lang.Object; `allowed` lists the classes it may hold when read. */
function objectSlot(allowed?: readonly Descriptor[]): AnyDescriptor
function objectSlot(allowed?: unknown, extra?: unknown): AnyDescriptor {
  const problem = allowedProblem(allowed) ?? tooMany(extra, 1)
  if (problem !== undefined) throw refusal('Object', [allowed, extra], problem)
  return Object.freeze({ kind: 'any', allowed: Object.freeze([...((allowed ?? []) as readonly Descriptor[])]) })
}

function allowedProblem(allowed: unknown): string | undefined {
  if (allowed === undefined) return undefined
  if (isDescriptor(allowed)) return `allowed is one descriptor, not an array of them: t.Object([${shown(allowed)}])`
  if (!Array.isArray(allowed)) return `allowed is ${shown(allowed)}, not an array of descriptors`
  for (const [i, d] of allowed.entries()) {
    const problem = notAType(`allowed[${i}]`, d)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** A value whose runtime type is given: `t.typed(In, { a: 1, b: 2 })` in an Object slot. */
function typed<T>(type: Descriptor, value: T): Typed<T>
function typed(type: unknown, value: unknown, extra?: unknown): Typed {
  const problem = notAType('type', type) ?? tooMany(extra, 2)
  if (problem !== undefined) throw refusal('typed', [type, value, extra], problem)
  return new Typed(type as Descriptor, value)
}

const FUNCTIONS = { object, field, list, array, map, Object: objectSlot, typed } satisfies Record<
  Factory,
  (...args: never[]) => unknown
>
const FACTORIES: ReadonlyMap<unknown, Factory> = new Map(
  Object.entries(FUNCTIONS).map(([name, fn]) => [fn, name as Factory])
)

/**
 * The descriptors: constants for the built-in types, factories for the rest. Every signature is in
 * docs/descriptors.md; a factory called wrongly throws a TypeError naming it and the caller's place.
 */
export const t = {
  int: scalar('int'),
  Integer: scalar('Integer'),
  long: scalar('long'),
  Long: scalar('Long'),
  double: scalar('double'),
  Double: scalar('Double'),
  boolean: scalar('boolean'),
  Boolean: scalar('Boolean'),
  char: scalar('char'),
  Character: scalar('Character'),
  String: scalar('String'),
  Date: Object.freeze({ kind: 'date' }) as DateDescriptor,
  LocalDate: Object.freeze({ kind: 'localDate' }) as LocalDateDescriptor,
  void: Object.freeze({ kind: 'void' }) as VoidDescriptor,
  object,
  field,
  list,
  array,
  map,
  Object: objectSlot,
  typed
}

/** Java simple name: com.example.Container$Inner → Inner. */
export function simpleName(className: string): string {
  const dot = className.lastIndexOf('.')
  const dollar = className.lastIndexOf('$')
  return className.slice(Math.max(dot, dollar) + 1)
}

const BOXED: Record<ScalarType, string> = {
  int: 'int',
  Integer: 'java.lang.Integer',
  long: 'long',
  Long: 'java.lang.Long',
  double: 'double',
  Double: 'java.lang.Double',
  boolean: 'boolean',
  Boolean: 'java.lang.Boolean',
  char: 'char',
  Character: 'java.lang.Character',
  String: 'java.lang.String'
}

/** The Java class name of a descriptor: java.lang.Integer, com.example.In, java.util.ArrayList, java.lang.Integer[]. */
export function javaClassName(d: Descriptor): string {
  switch (d.kind) {
    case 'scalar':
      return BOXED[d.type]
    case 'date':
      return 'java.util.Date'
    case 'localDate':
      return 'java.time.LocalDate'
    case 'object':
      return d.className
    case 'list':
      return d.className === 'java.util.List' ? 'java.util.ArrayList' : d.className
    case 'array':
      return `${javaClassName(d.item)}[]`
    case 'map':
      return d.className === 'java.util.Map' ? 'java.util.HashMap' : d.className
    case 'any':
      return 'java.lang.Object'
    case 'void':
      return 'void'
  }
}

/** A readable type name for messages and the catalog: Integer, com.example.In, List<String>, Integer[]. */
export function typeName(d: Descriptor): string {
  switch (d.kind) {
    case 'scalar':
      return d.type
    case 'date':
      return 'Date'
    case 'localDate':
      return 'LocalDate'
    case 'object':
      return d.className
    case 'list':
      return `${d.className === 'java.util.List' ? 'List' : simpleName(d.className)}<${typeName(d.item)}>`
    case 'array':
      return `${typeName(d.item)}[]`
    case 'map':
      return `${d.className === 'java.util.Map' ? 'Map' : simpleName(d.className)}<String,${typeName(d.value)}>`
    case 'any':
      return 'Object'
    case 'void':
      return 'void'
  }
}

const BOXES: Partial<Record<ScalarType, Descriptor>> = {
  int: t.Integer,
  long: t.Long,
  double: t.Double,
  boolean: t.Boolean,
  char: t.Character
}

/** The boxed type of a primitive (int → Integer), as a Java type argument is; any other as it is. */
export function boxed(d: Descriptor): Descriptor {
  return d.kind === 'scalar' ? (BOXES[d.type] ?? d) : d
}

export function isNullable(d: Descriptor): boolean {
  return (
    d.kind !== 'scalar' ||
    !(d.type === 'int' || d.type === 'long' || d.type === 'double' || d.type === 'boolean' || d.type === 'char')
  )
}

const INT_MIN = -2147483648
const INT_MAX = 2147483647
const LIST_OF_OBJECT = t.list(t.Object(), 'java.util.ArrayList')
const MAP_OF_OBJECT = t.map(t.Object(), 'java.util.LinkedHashMap')

/**
 * The runtime type of a value in an Object slot: null for null, undefined when it cannot be told
 * (a plain object must say its class with t.typed). JS values map to the Java type they come from.
 */
export function inferType(value: unknown): Descriptor | null | undefined {
  if (value === null || value === undefined) return null
  if (value instanceof Typed) return value.type
  switch (typeof value) {
    case 'number':
      return Number.isInteger(value) && value >= INT_MIN && value <= INT_MAX && !Object.is(value, -0)
        ? t.Integer
        : t.Double
    case 'bigint':
      return t.Long
    case 'string':
      return t.String
    case 'boolean':
      return t.Boolean
    default:
      break
  }
  if (value instanceof Date) return t.Date
  if (value instanceof LocalDate) return t.LocalDate
  if (Array.isArray(value)) return LIST_OF_OBJECT
  if (value instanceof Map) return MAP_OF_OBJECT
  return undefined
}

/** Unwraps Typed. */
export function plain(value: unknown): unknown {
  return value instanceof Typed ? value.value : value
}

/** Two descriptors describe the same Java type. */
export function sameType(a: Descriptor, b: Descriptor): boolean {
  if (a === b) return true
  if (a.kind !== b.kind) return false
  switch (a.kind) {
    case 'scalar':
      return javaClassName(a) === javaClassName(b)
    case 'object':
      return a.className === (b as ObjectDescriptor).className
    case 'list':
      return javaClassName(a) === javaClassName(b)
    case 'map':
      return javaClassName(a) === javaClassName(b)
    case 'array':
      return sameType(a.item, (b as ArrayDescriptor).item)
    default:
      return true
  }
}
