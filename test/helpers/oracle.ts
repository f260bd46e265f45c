// The client of test/oracle/Oracle.java, the real Java serializers running as a process of their own
// (scripts/ensure-oracle.sh installs the JDK and Debian's jars when missing and compiles the oracle).
// Values cross as JSON in one agreed form (see Oracle.java): this module turns descriptors into the
// oracle's type specs and our values into that form, so Java's answers compare with ours as data.
// An Object slot (t.Object(allowed)) is the spec {"k":"Object","a":[<the allowed classes' specs>]}; a
// value in it carries its runtime class, {"!t":<tag>,"v":<value>}, because that class is what both
// libraries write by and what Jackson's untyped reading changes (an object comes back a LinkedHashMap).
import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createInterface } from 'node:readline'
import { join } from 'node:path'
import {
  LocalDate,
  Typed,
  boxed,
  inferType,
  javaClassName,
  t,
  type AnyDescriptor,
  type Descriptor,
  type ObjectDescriptor,
  type ScalarType
} from '../../src/microservice/descriptors/descriptors'
import { SCALARS } from './inputs/arbitraries'
import { hashMapOrder } from '../../src/microservice/serializers/java/text'
import { ROOT } from './root'

/** The setups the oracle builds (Oracle.java `setups`). */
export type Setup = 'alphaXml' | 'alphaJson' | 'alphaXml+aliases' | 'alphaJson+aliases' | 'betaXml' | 'betaJson'
/** The alpha JSON setups as XStream 1.4.21 reads root collections (NOTES.md, "VERSION TRAP"). */
export type Variant = 'alphaJson~1.4.21' | 'alphaJson+aliases~1.4.21'
export const SETUPS: readonly Setup[] = [
  'alphaXml',
  'alphaJson',
  'alphaXml+aliases',
  'alphaJson+aliases',
  'betaXml',
  'betaJson'
]

export type Spec =
  | { k: string }
  | { k: 'object'; c: string; f: Array<{ n: string; t: Spec }> }
  | { k: 'list' | 'map'; c: string; i: Spec }
  | { k: 'array'; i: Spec }
  | { k: 'Object'; a: Spec[] }

/**
 * The runtime class of a value in an Object slot (Oracle.java `tagOf`): a boxed scalar, BigInteger
 * (Jackson's untyped reading of an integer past long), Date or LocalDate by its `k`; a class of the
 * slot's `a` by name; an ArrayList, LinkedList, HashMap or LinkedHashMap, whose items are Object slots
 * again (`i` is {"k":"Object"}: the same slot); an array by its component (a primitive, a class,
 * Object).
 */
export type Tag =
  { k: string } | { k: 'object'; c: string } | { k: 'list' | 'map'; c: string; i: Tag } | { k: 'array'; i: Tag }

export type Wire = null | number | string | boolean | Wire[] | { [k: string]: Wire }

export type Request =
  | { op: 'write'; setup: Setup; type: Spec; value: Wire; zone?: string }
  | { op: 'read'; setup: Setup | Variant; type: Spec; text: string; zone?: string }
  | { op: 'compile'; sources: Record<string, string>; aliases: Record<string, string> }
  | { op: 'versions' }

export interface Answer {
  text?: string
  value?: Wire
  error?: string
  message?: string
  /** The class of the innermost cause of an error (its kind: a parse error wrapped by a mapper is still one). */
  rootCause?: string
  /** The oracle itself failed (not the serializer asked): the test must fail, not count a refusal. */
  oracleFailure?: boolean
  classes?: number
  java?: string
  xstream?: string
  jackson?: string
}

export function specOf(d: Descriptor): Spec {
  switch (d.kind) {
    case 'scalar':
      return { k: d.type }
    case 'date':
      return { k: 'Date' }
    case 'localDate':
      return { k: 'LocalDate' }
    case 'object':
      return { k: 'object', c: d.className, f: d.fields.map((f) => ({ n: f.name, t: specOf(f.type) })) }
    case 'list':
    case 'map':
      return { k: d.kind, c: d.className, i: specOf(d.kind === 'list' ? d.item : d.value) }
    case 'array':
      return { k: 'array', i: specOf(d.item) }
    case 'any':
      return { k: 'Object', a: d.allowed.map(allowedSpec) }
    default:
      throw new Error(`the oracle takes no ${d.kind}`)
  }
}

/** The oracle finds a slot's classes by name: only classes can be listed (arrays of them are allowed with them). */
function allowedSpec(d: Descriptor): Spec {
  if (d.kind !== 'object') throw new Error(`the oracle takes only classes in an Object slot's list, not ${d.kind}`)
  return specOf(d)
}

/** The tag of a runtime type (the key order is Oracle.java's, so that tags compare as text). */
export function tagOf(r: Descriptor): Tag | undefined {
  switch (r.kind) {
    case 'scalar':
      return { k: r.type }
    case 'date':
      return { k: 'Date' }
    case 'localDate':
      return { k: 'LocalDate' }
    case 'object':
      return { k: 'object', c: r.className }
    case 'list':
    case 'map':
      return { k: r.kind, c: javaClassName(r), i: { k: 'Object' } }
    case 'array': {
      const i = tagOf(r.item)
      return i === undefined ? undefined : { k: 'array', i }
    }
    case 'any':
      return { k: 'Object' }
    default:
      return undefined
  }
}

/**
 * The type a tag stands for in a slot: what its value's wire form is read as. Undefined for a tag no
 * descriptor has (BigInteger) or a class the slot does not list.
 */
export function tagType(tag: Tag, slot: AnyDescriptor): Descriptor | undefined {
  const inner = t.Object(slot.allowed)
  switch (tag.k) {
    case 'Date':
      return t.Date
    case 'LocalDate':
      return t.LocalDate
    case 'Object':
      return inner
    case 'object':
      return slot.allowed.find((a) => a.kind === 'object' && a.className === (tag as { c: string }).c)
    case 'list':
      return t.list(inner, (tag as { c: string }).c as 'java.util.ArrayList')
    case 'map':
      return t.map(inner, (tag as { c: string }).c as 'java.util.HashMap')
    case 'array': {
      const i = tagType((tag as { i: Tag }).i, slot)
      return i === undefined ? undefined : t.array(i)
    }
    default:
      return SCALAR_TAGS.has(tag.k) ? t[tag.k as ScalarType] : undefined
  }
}

/** The scalar tags: boxes for a slot's values, primitives too for an array's components. */
const SCALAR_TAGS = new Set<string>(SCALARS.map((d) => d.type))

/** The tag rebuilt with its keys in one order, whatever order a side wrote them in. */
function canonTag(w: Wire): Wire {
  if (w === null || typeof w !== 'object' || Array.isArray(w)) return w
  return {
    k: w.k ?? null,
    ...(w.c === undefined ? {} : { c: w.c }),
    ...(w.i === undefined ? {} : { i: canonTag(w.i) })
  }
}

/** The wire form of a value in an Object slot: its runtime class, then the value as that class. */
function slotWire(v: unknown, slot: AnyDescriptor): Wire {
  if (v === null || v === undefined || (v instanceof Typed && (v.value === null || v.value === undefined))) return null
  const inferred = inferType(v)
  if (inferred === null || inferred === undefined) return { '!class': `js ${typeof v} in an Object slot` }
  // A slot holds objects: a primitive's value is its box (an int typed so is an Integer).
  const r = inferred.kind === 'scalar' ? boxed(inferred) : inferred
  const tag = tagOf(r)
  const as = tag === undefined ? undefined : tagType(tag, slot)
  if (tag === undefined || as === undefined) return { '!class': `js ${r.kind} not in the slot` }
  return { '!t': tag, v: toWire(v, as) }
}

const f64 = new Float64Array(1)
const u64 = new BigUint64Array(f64.buffer)

/** Double.doubleToLongBits as 16 hex digits (every NaN is Java's one NaN). */
export function doubleBits(x: number): string {
  if (Number.isNaN(x)) return '7ff8000000000000'
  f64[0] = x
  return u64[0]!.toString(16).padStart(16, '0')
}

/**
 * A value of ours in the oracle's form. `hashOrder` puts HashMap entries in Java's iteration order
 * (what Java builds from them then iterates the same way); comparisons sort them instead.
 */
export function toWire(v: unknown, d: Descriptor): Wire {
  if (d.kind === 'any') return slotWire(v, d)
  const x = v instanceof Typed ? v.value : v
  if (x === null || x === undefined) return null
  switch (d.kind) {
    case 'scalar':
      if (typeof x === 'bigint') return x.toString()
      if (typeof x === 'number') return d.type === 'double' || d.type === 'Double' ? doubleBits(x) : x === 0 ? 0 : x
      if (typeof x === 'string' || typeof x === 'boolean') return x
      return { '!class': `js ${typeof x}` }
    case 'date':
      return x instanceof Date ? x.getTime() : { '!class': 'js non-Date' }
    case 'localDate':
      return x instanceof LocalDate ? x.iso : { '!class': 'js non-LocalDate' }
    case 'object': {
      const o = x as Record<string, unknown>
      return Object.fromEntries(d.fields.map((f) => [f.name, toWire(o[f.name], f.type)]))
    }
    case 'list':
    case 'array':
      return Array.isArray(x) ? x.map((i) => toWire(i, d.item)) : { '!class': 'js non-array' }
    case 'map': {
      if (!(x instanceof Map)) return { '!class': 'js non-Map' }
      const m = x as Map<string, unknown>
      const keys = d.className === 'java.util.LinkedHashMap' ? [...m.keys()] : hashMapOrder([...m.keys()])
      return keys.map((k) => [k, toWire(m.get(k), d.value)])
    }
    default:
      return { '!class': d.kind }
  }
}

/** The wire form with HashMap entries sorted by key, for comparing values whatever their order. */
export function canonWire(w: Wire, d: Descriptor): Wire {
  if (w === null || typeof w !== 'object' || (!Array.isArray(w) && '!class' in w)) return w
  switch (d.kind) {
    case 'object': {
      const o = w as Record<string, Wire>
      return Object.fromEntries(d.fields.map((f) => [f.name, canonWire(o[f.name] ?? null, f.type)]))
    }
    case 'list':
    case 'array':
      return (w as Wire[]).map((i) => canonWire(i, d.item))
    case 'map': {
      const entries = (w as Array<[string, Wire]>).map(([k, i]) => [k, canonWire(i, d.value)] as [string, Wire])
      if (d.className !== 'java.util.LinkedHashMap') entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      return entries
    }
    case 'any': {
      const o = w as { '!t'?: Wire; v?: Wire }
      if (o['!t'] === undefined) return w
      const as = tagType(o['!t'] as Tag, d)
      return { '!t': canonTag(o['!t']), v: as === undefined ? (o.v ?? null) : canonWire(o.v ?? null, as) }
    }
    default:
      return w
  }
}

/** Every class a descriptor reaches (superclasses are found through `parents`). */
export function classesOf(d: Descriptor, into = new Map<string, ObjectDescriptor>()): Map<string, ObjectDescriptor> {
  switch (d.kind) {
    case 'object':
      if (!into.has(d.className)) {
        into.set(d.className, d)
        for (const f of d.fields) classesOf(f.type, into)
      }
      break
    case 'list':
    case 'array':
      classesOf(d.item, into)
      break
    case 'map':
      classesOf(d.value, into)
      break
    case 'any':
      for (const a of d.allowed) classesOf(a, into)
      break
    default:
      break
  }
  return into
}

/** The running oracle. Requests are answered in order, one line each. */
export class Oracle {
  private readonly waiting: Array<{ resolve: (a: Answer) => void; reject: (e: Error) => void }> = []
  private exited: Error | null = null
  private stderr = ''

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const w = this.waiting.shift()
      if (w !== undefined) w.resolve(JSON.parse(line) as Answer)
    })
    child.stderr.on('data', (b: Buffer) => {
      this.stderr = (this.stderr + b.toString()).slice(-4000)
    })
    child.on('exit', (code, signal) => {
      this.exited = new Error(`the Java oracle exited (${code ?? signal}): ${this.stderr}`)
      for (const w of this.waiting.splice(0)) w.reject(this.exited)
    })
  }

  /** Installs what is missing (JDK, Debian's jars), compiles the oracle and starts it. */
  static start(): Oracle {
    const cp = execFileSync('bash', [join(ROOT, 'scripts', 'ensure-oracle.sh')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit']
    }).trim()
    const child = spawn('java', ['-Xss8m', '-XX:+UseSerialGC', '-cp', cp, 'Oracle'], { stdio: 'pipe' })
    return new Oracle(child)
  }

  ask(request: Request): Promise<Answer> {
    return this.send(request)
  }

  async batch(requests: Request[]): Promise<Answer[]> {
    const a = await this.send({ op: 'batch', requests })
    return (a as { results: Answer[] }).results
  }

  private send(request: object): Promise<Answer> {
    if (this.exited !== null) return Promise.reject(this.exited)
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject })
      this.child.stdin.write(`${JSON.stringify(request)}\n`)
    })
  }

  async close(): Promise<void> {
    if (this.exited !== null) return
    const done = new Promise<void>((resolve) => this.child.once('exit', () => resolve()))
    this.child.stdin.end()
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000)
    await done
    clearTimeout(timer)
  }
}

/** What a test asks Java: the live oracle, or answers recorded from it. */
export interface JavaAnswers {
  ask(request: Request): Promise<Answer>
  close(): Promise<void>
}

/** A recording's form: every distinct request (its JSON) with Java's answer, in the order first asked. */
export type Recording = Array<[request: string, answer: Answer]>

/** The live oracle, keeping every request and its answer: a recording to compare with, or to write. */
export class RecordingOracle implements JavaAnswers {
  private readonly asked = new Map<string, Answer>()

  constructor(private readonly live: Oracle) {}

  async ask(request: Request): Promise<Answer> {
    const answer = await this.live.ask(request)
    this.asked.set(JSON.stringify(request), answer)
    return answer
  }

  recording(): Recording {
    return [...this.asked]
  }

  close(): Promise<void> {
    return this.live.close()
  }
}

/** Java's answers as a recording holds them: a request it does not hold is refused, never guessed. */
export class RecordedAnswers implements JavaAnswers {
  private readonly answers: Map<string, Answer>

  constructor(
    recording: Recording,
    private readonly source: string
  ) {
    this.answers = new Map(recording)
  }

  ask(request: Request): Promise<Answer> {
    const key = JSON.stringify(request)
    const answer = this.answers.get(key)
    if (answer === undefined)
      return Promise.reject(new Error(`${this.source} holds no answer to ${key}: record it again from the live oracle`))
    return Promise.resolve(answer)
  }

  close(): Promise<void> {
    return Promise.resolve()
  }
}
