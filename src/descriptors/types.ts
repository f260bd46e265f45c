/**
 * Runtime type descriptors: the one description of a parameter or return type that feeds
 * deserialization, serialization, argument-count checks and (later) the API description.
 * Values: int/Integer/double/Double → number, long/Long → bigint (64-bit, never a rounded double),
 * boolean → boolean, char → one-character string, String → string, objects → plain objects with
 * the declared fields, lists → arrays. Boxed types and objects admit null; primitives do not.
 */

export type ScalarType = 'int' | 'Integer' | 'long' | 'Long' | 'double' | 'Double' | 'boolean' | 'Boolean' | 'char' | 'Character' | 'String'

export interface ScalarDescriptor<T extends ScalarType = ScalarType> {
  readonly kind: 'scalar'
  readonly type: T
}

export interface FieldDescriptor {
  readonly name: string
  readonly type: Descriptor
}

export interface ObjectDescriptor<F extends Record<string, Descriptor> = Record<string, Descriptor>> {
  readonly kind: 'object'
  /** Java class name, e.g. com.example.In; nested classes use '$' (com.example.Container$Inner). */
  readonly className: string
  /** Fields in declaration order (superclass fields first). */
  readonly fields: readonly FieldDescriptor[]
  readonly shape: F
  /** Alias registered on the alpha serializers (XStream `alias`). */
  readonly alias: string | undefined
}

export interface ListDescriptor<I extends Descriptor = Descriptor> {
  readonly kind: 'list'
  readonly item: I
  readonly impl: 'ArrayList' | 'LinkedList'
}

export interface VoidDescriptor {
  readonly kind: 'void'
}

export type Descriptor = ScalarDescriptor | ObjectDescriptor | ListDescriptor | VoidDescriptor

type ScalarValue<T extends ScalarType> =
  T extends 'int' | 'double' ? number :
    T extends 'Integer' | 'Double' ? number | null :
      T extends 'long' ? bigint :
        T extends 'Long' ? bigint | null :
          T extends 'boolean' ? boolean :
            T extends 'Boolean' ? boolean | null :
              T extends 'char' ? string :
                string | null

/** The TypeScript type of values described by D. */
export type Infer<D> =
  D extends ScalarDescriptor<infer T> ? ScalarValue<T> :
    D extends ObjectDescriptor<infer F> ? { [K in keyof F]: Infer<F[K]> } | null :
      D extends ListDescriptor<infer I> ? Array<Infer<I>> | null :
        D extends VoidDescriptor ? void :
          never

export type InferTuple<P extends readonly Descriptor[]> = { [K in keyof P]: Infer<P[K]> }

function scalar<T extends ScalarType> (type: T): ScalarDescriptor<T> {
  return Object.freeze({ kind: 'scalar', type })
}

export interface ObjectOptions {
  alias?: string
  /** Superclass: its fields come first, as Java writes them. */
  extends?: ObjectDescriptor
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
  void: Object.freeze({ kind: 'void' }) as VoidDescriptor,
  object<F extends Record<string, Descriptor>> (className: string, shape: F, options: ObjectOptions = {}): ObjectDescriptor<F> {
    const inherited = options.extends?.fields ?? []
    const own = Object.entries(shape).map(([name, type]) => Object.freeze({ name, type }))
    for (const f of own) {
      if (f.type.kind === 'void') throw new TypeError(`${className}.${f.name}: a field cannot be void`)
      if (inherited.some((g) => g.name === f.name)) throw new TypeError(`${className}.${f.name} hides a superclass field`)
    }
    return Object.freeze({ kind: 'object', className, fields: Object.freeze([...inherited, ...own]), shape, alias: options.alias })
  },
  list<I extends Descriptor> (item: I, impl: 'ArrayList' | 'LinkedList' = 'ArrayList'): ListDescriptor<I> {
    return Object.freeze({ kind: 'list', item, impl })
  }
}

/** Java simple name: com.example.Container$Inner → Inner. */
export function simpleName (className: string): string {
  const dot = className.lastIndexOf('.')
  const dollar = className.lastIndexOf('$')
  return className.slice(Math.max(dot, dollar) + 1)
}

/** A readable type name for messages and the catalog: Integer, com.example.In, List<String>. */
export function typeName (d: Descriptor): string {
  switch (d.kind) {
    case 'scalar': return d.type
    case 'object': return d.className
    case 'list': return `List<${typeName(d.item)}>`
    case 'void': return 'void'
  }
}

export function isNullable (d: Descriptor): boolean {
  return d.kind !== 'scalar' || !(d.type === 'int' || d.type === 'long' || d.type === 'double' || d.type === 'boolean' || d.type === 'char')
}
