import { BOM_REFUSED, JsonSyntaxError, scanNumber, scanString, skipWhitespace, skipBom } from './scan'
import { DEFAULT_READ_LIMITS, type ReadLimits } from '../contract/limits'

/**
 * A lossless JSON tree: numbers keep their source text (so a 64-bit long is never rounded through
 * a double) and object members keep their order and duplicates. Member names are plain strings in
 * an array of pairs, never keys of a JS object, so `__proto__` cannot pollute anything.
 */
export type JsonNode =
  | { readonly t: 'null' }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'num'; readonly text: string }
  | { readonly t: 'str'; readonly v: string }
  | { readonly t: 'arr'; readonly items: JsonNode[] }
  | { readonly t: 'obj'; readonly members: Array<[string, JsonNode]> }

const NULL: JsonNode = Object.freeze({ t: 'null' })
const TRUE: JsonNode = Object.freeze({ t: 'bool', v: true })
const FALSE: JsonNode = Object.freeze({ t: 'bool', v: false })

class Parser {
  i: number
  private nodes = 0
  constructor(
    readonly b: Uint8Array,
    readonly limits: ReadLimits
  ) {
    if (skipBom(b) > 0) throw new JsonSyntaxError(BOM_REFUSED, 0)
    this.i = 0
  }

  value(depth: number): JsonNode {
    const b = this.b
    this.i = skipWhitespace(b, this.i)
    if (++this.nodes > this.limits.maxNodes)
      throw new JsonSyntaxError(`more than ${this.limits.maxNodes} values`, this.i)
    const c = b[this.i]
    if (c === 0x7b || c === 0x5b) {
      if (depth >= this.limits.maxDepth)
        throw new JsonSyntaxError(`nesting deeper than ${this.limits.maxDepth} levels`, this.i)
      return c === 0x7b ? this.object(depth + 1) : this.array(depth + 1)
    }
    if (c === 0x22) return { t: 'str', v: this.string() }
    if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) {
      const start = this.i
      this.i = scanNumber(b, start)
      return { t: 'num', text: latin1(b, start, this.i) }
    }
    if (this.word('true')) return TRUE
    if (this.word('false')) return FALSE
    if (this.word('null')) return NULL
    throw new JsonSyntaxError(c === undefined ? 'unexpected end of JSON' : 'unexpected character', this.i)
  }

  private word(w: string): boolean {
    for (let k = 0; k < w.length; k++) if (this.b[this.i + k] !== w.charCodeAt(k)) return false
    this.i += w.length
    return true
  }

  string(): string {
    const start = this.i
    this.i = scanString(this.b, start)
    return decodeJsonString(this.b, start, this.i, this.limits.maxStringLength)
  }

  private expect(c: number, what: string): void {
    this.i = skipWhitespace(this.b, this.i)
    if (this.b[this.i] !== c) throw new JsonSyntaxError(`${what} expected`, this.i)
    this.i++
  }

  private object(depth: number): JsonNode {
    this.i++
    const members: Array<[string, JsonNode]> = []
    this.i = skipWhitespace(this.b, this.i)
    if (this.b[this.i] === 0x7d) {
      this.i++
      return { t: 'obj', members }
    }
    for (;;) {
      this.i = skipWhitespace(this.b, this.i)
      if (this.b[this.i] !== 0x22) throw new JsonSyntaxError('member name expected', this.i)
      const key = this.string()
      this.expect(0x3a, "':'")
      members.push([key, this.value(depth)])
      this.i = skipWhitespace(this.b, this.i)
      const c = this.b[this.i++]
      if (c === 0x2c) continue
      if (c === 0x7d) return { t: 'obj', members }
      throw new JsonSyntaxError("',' or '}' expected", this.i - 1)
    }
  }

  private array(depth: number): JsonNode {
    this.i++
    const items: JsonNode[] = []
    this.i = skipWhitespace(this.b, this.i)
    if (this.b[this.i] === 0x5d) {
      this.i++
      return { t: 'arr', items }
    }
    for (;;) {
      items.push(this.value(depth))
      this.i = skipWhitespace(this.b, this.i)
      const c = this.b[this.i++]
      if (c === 0x2c) continue
      if (c === 0x5d) return { t: 'arr', items }
      throw new JsonSyntaxError("',' or ']' expected", this.i - 1)
    }
  }
}

/** The string scanned (and so validated) from `start` (its opening quote) to `end` (after its closing one). */
export function decodeJsonString(b: Uint8Array, start: number, end: number, maxLength: number): string {
  // A string never decodes to more UTF-16 units than it has bytes: check the cheap bound first.
  if (end - start - 2 > maxLength) {
    const n = Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('utf8').length - 2
    if (n > maxLength) throw new JsonSyntaxError(`a string longer than ${maxLength} characters`, start)
  }
  if (end - start <= SHORT + 2) {
    const plain = shortAscii(b, start + 1, end - 1)
    if (plain !== null) return plain
  }
  const raw = Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('utf8')
  // The scanner validated the escapes; JSON.parse of a lone string is the fastest exact decoder.
  return raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1)
}

/** Tokens this short are decoded by hand: a Buffer view and a native call cost more than the token. */
const SHORT = 16

/** Printable ASCII without '\\' made into a string by hand; null when there is anything else. */
function shortAscii(b: Uint8Array, start: number, end: number): string | null {
  let s = ''
  for (let k = start; k < end; k++) {
    const c = b[k]!
    if (c === 0x5c || c > 0x7e) return null
    s += String.fromCharCode(c)
  }
  return s
}

/** Bytes as Latin-1 characters (a number token: ASCII). */
export function latin1(b: Uint8Array, start: number, end: number): string {
  if (end - start <= SHORT) {
    let s = ''
    for (let k = start; k < end; k++) s += String.fromCharCode(b[k]!)
    return s
  }
  return Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('latin1')
}

export interface JsonParseOptions {
  limits?: ReadLimits
  /** Jackson ignores what follows the root value; strict callers refuse it. */
  allowTrailing?: boolean
}

export function parseJson(b: Uint8Array, options: JsonParseOptions = {}): JsonNode {
  const p = new Parser(b, options.limits ?? DEFAULT_READ_LIMITS)
  const node = p.value(0)
  if (options.allowTrailing !== true) {
    const end = skipWhitespace(b, p.i)
    if (end !== b.length) throw new JsonSyntaxError('trailing characters after the JSON value', end)
  }
  return node
}
