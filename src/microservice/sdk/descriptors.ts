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

function toField(name: string, input: FieldInput, owner: string): FieldDescriptor {
  const spec: FieldSpec = input.kind === 'field' ? input : { kind: 'field', type: input, options: {} }
  const o = spec.options
  if (spec.type.kind === 'void') throw new TypeError(`${owner}.${name}: a field cannot be void`)
  // Values are plain objects: a field by this name would set their prototype instead.
  if (name === '__proto__') throw new TypeError(`${owner}.${name}: this field name is reserved in JavaScript`)
  if (o.attribute === true && spec.type.kind !== 'scalar')
    throw new TypeError(`${owner}.${name}: only scalar fields can be attributes`)
  if (o.implicit !== undefined && spec.type.kind !== 'list')
    throw new TypeError(`${owner}.${name}: only list fields can be implicit`)
  return Object.freeze({
    name,
    type: spec.type,
    attribute: o.attribute === true,
    alias: o.alias,
    omit: o.omit === true,
    implicit: o.implicit
  })
}

/** The descriptor factory: `t.object('com.example.In', { a: t.Integer, b: t.Integer }, { alias: 'in' })`. */
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
  object<F extends Record<string, FieldInput>>(
    className: string,
    shape: F,
    options: ObjectOptions = {}
  ): ObjectDescriptor<F> {
    const inherited = options.extends?.fields ?? []
    const own = Object.entries(shape).map(([name, input]) => toField(name, input, className))
    for (const f of own) {
      if (inherited.some((g) => g.name === f.name))
        throw new TypeError(`${className}.${f.name} hides a superclass field`)
    }
    return Object.freeze({
      kind: 'object',
      className,
      fields: Object.freeze([...inherited, ...own]),
      shape,
      alias: options.alias
    })
  },
  field<D extends Descriptor>(type: D, options: FieldOptions): FieldSpec<D> {
    return Object.freeze({ kind: 'field', type, options: Object.freeze({ ...options }) })
  },
  list<I extends Descriptor>(item: I, className: ListClass = 'java.util.List'): ListDescriptor<I> {
    return Object.freeze({ kind: 'list', item, className })
  },
  array<I extends Descriptor>(item: I): ArrayDescriptor<I> {
    return Object.freeze({ kind: 'array', item })
  },
  map<V extends Descriptor>(value: V, className: MapClass = 'java.util.Map'): MapDescriptor<V> {
    return Object.freeze({ kind: 'map', value, className })
  },
  /** java.lang.Object; `allowed` lists the classes it may hold when read. */
  Object(allowed: readonly Descriptor[] = []): AnyDescriptor {
    return Object.freeze({ kind: 'any', allowed: Object.freeze([...allowed]) })
  },
  typed<T>(type: Descriptor, value: T): Typed<T> {
    return new Typed(type, value)
  }
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
