import { scanXml, decodeText, XmlLimitError, XmlSyntaxError, type XmlHandler } from './scan'
import { DEFAULT_READ_LIMITS, type ReadLimits } from '../contract/limits'
import { isWoodstoxNcName } from './woodstox-names'

/** An element of a parsed XML document. Text is decoded; `children` holds elements only. */
export interface XmlElement {
  name: string
  attributes: Array<[string, string]>
  children: XmlElement[]
  /** All character data directly inside the element, CDATA included, in order. */
  text: string
  /**
   * Kept only when parseXmlPrefix is asked to (`keepSegments`), for an element with child elements: the
   * character data between them, `segments[k]` before child k and the last after the last child.
   */
  segments?: string[]
}

class TreeBuilder implements XmlHandler {
  readonly stack: XmlElement[] = []
  root: XmlElement | null = null
  private elements = 0
  /** Whether the document declares XML 1.1, whose names are wider; asked at the first name past ASCII. */
  private xml11: boolean | undefined
  constructor(
    private readonly b: Uint8Array,
    private readonly limits: ReadLimits,
    private readonly xml10: boolean,
    private readonly keepSegments: boolean
  ) {}

  open(_depth: number, start: number, nameStart: number, nameEnd: number, attrs: number[]): void {
    if (++this.elements > this.limits.maxNodes)
      throw new XmlLimitError(`more than ${this.limits.maxNodes} elements`, start)
    const b = this.b
    const attributes: Array<[string, string]> = []
    for (let k = 0; k < attrs.length; k += 4) {
      const v0 = attrs[k + 2]!
      const v1 = attrs[k + 3]!
      let hasRef = false
      for (let i = v0; i < v1; i++)
        if (b[i] === 0x26) {
          hasRef = true
          break
        }
      attributes.push([utf8(b, attrs[k]!, attrs[k + 1]!), decodeText(b, v0, v1, hasRef, this.xml10, true)])
    }
    const el: XmlElement = { name: utf8(b, nameStart, nameEnd), attributes, children: [], text: '' }
    if (this.xml10) this.checkNames(el, b, nameStart, nameEnd, start)
    const parent = this.stack[this.stack.length - 1]
    if (parent !== undefined) {
      if (this.keepSegments) (parent.segments ??= [parent.text]).push('')
      parent.children.push(el)
    } else this.root = el
    this.stack.push(el)
  }

  close(): void {
    this.stack.pop()
  }

  /**
   * Names as Woodstox reads them, namespace-aware: a prefix and a local name, each a name of its
   * tables, the prefix declared on the element or above it. The scanner has let through any byte past
   * ASCII and any colon, so names of plain ASCII letters, digits, '.', '-' and '_' need no second look.
   */
  private checkNames(el: XmlElement, b: Uint8Array, nameStart: number, nameEnd: number, at: number): void {
    let plain = true
    for (let i = nameStart; i < nameEnd && plain; i++) plain = b[i]! < 0x80 && b[i] !== 0x3a
    if (!plain) this.checkName(el.name, el, at)
    for (const [name] of el.attributes)
      if (name !== 'xmlns' && !name.startsWith('xmlns:') && /[^\x00-\x7f]|:/.test(name)) this.checkName(name, el, at)
  }

  private checkName(name: string, el: XmlElement, at: number): void {
    const colon = name.indexOf(':')
    const prefix = colon < 0 ? null : name.slice(0, colon)
    const local = colon < 0 ? name : name.slice(colon + 1)
    const xml11 = (this.xml11 ??= declaresXml11(this.b))
    if (!isWoodstoxNcName(local, xml11) || (prefix !== null && !isWoodstoxNcName(prefix, xml11)))
      throw new XmlSyntaxError(`'${name.slice(0, 40)}' is not an XML ${xml11 ? '1.1' : '1.0'} name`, at)
    if (prefix !== null && prefix !== 'xml' && !this.declares(prefix, el))
      throw new XmlSyntaxError(`undeclared namespace prefix '${prefix.slice(0, 40)}'`, at)
  }

  private declares(prefix: string, el: XmlElement): boolean {
    const attr = `xmlns:${prefix}`
    if (el.attributes.some(([n]) => n === attr)) return true
    return this.stack.some((e) => e.attributes.some(([n]) => n === attr))
  }

  text(_depth: number, start: number, end: number, hasRefs: boolean): void {
    this.append(decodeText(this.b, start, end, hasRefs, this.xml10), start)
  }

  cdata(_depth: number, start: number, end: number): void {
    this.append(utf8(this.b, start, end), start)
  }

  private append(s: string, at: number): void {
    const el = this.stack[this.stack.length - 1]!
    if (el.text.length + s.length > this.limits.maxStringLength)
      throw new XmlLimitError(`a text longer than ${this.limits.maxStringLength} characters`, at)
    el.text += s
    if (el.segments !== undefined) el.segments[el.segments.length - 1] += s
  }
}

/** Whether the document's declaration (the scanner has checked its place and syntax) names version 1.1. */
function declaresXml11(b: Uint8Array): boolean {
  const head = Buffer.from(b.buffer, b.byteOffset, Math.min(b.length, 120)).toString('latin1')
  return /^(?:\xef\xbb\xbf)?<\?xml\s[^?]*?version\s*=\s*(["'])1\.1\1/.test(head)
}

function utf8(b: Uint8Array, start: number, end: number): string {
  return Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('utf8')
}

/**
 * What a reader that streams (Woodstox under Jackson) has read when it meets the document's first
 * syntax fault: the elements before it, whole, and the ones the fault left open. A reader that binds
 * as it reads refuses a value it met before the fault, and the fault itself only where it needs what
 * an open element had still to give.
 */
export interface XmlPrefix {
  /** Null when the fault comes before the root's start tag. */
  readonly root: XmlElement | null
  /** The elements the fault left open (the root and its last descendants): their text and children stop there. */
  readonly open: ReadonlySet<XmlElement>
  readonly fault: XmlSyntaxError | null
}

/**
 * Parses a document (DOCTYPE refused, see scan.ts) up to its first syntax fault, which it returns
 * rather than throws: both Java readers bind as they read (see XmlPrefix). `xml10` refuses character
 * references outside XML 1.0's Char and names outside Woodstox's names (its XML 1.1 names in a document
 * declared 1.1; an undeclared namespace prefix among them), as Woodstox does; without it they are read
 * as XStream's XPP3 reads them. `versions`: the XML versions the declaration may name (XPP3 only 1.0,
 * Woodstox 1.0 and 1.1). `keepSegments`: keep each element's text between its children apart too
 * (XmlElement.segments), for readers to which mixed content means something.
 */
export function parseXmlPrefix(
  b: Uint8Array,
  limits: ReadLimits = DEFAULT_READ_LIMITS,
  xml10 = false,
  versions: readonly string[] | null = null,
  keepSegments = false
): XmlPrefix {
  const builder = new TreeBuilder(b, limits, xml10, keepSegments)
  try {
    scanXml(b, builder, limits.maxDepth, versions)
    return { root: builder.root, open: NONE_OPEN, fault: null }
  } catch (err) {
    // Our limits are not Java's: a document past one is refused for that at once, whatever came before.
    if (!(err instanceof XmlSyntaxError) || err instanceof XmlLimitError) throw err
    return { root: builder.root, open: new Set(builder.stack), fault: err }
  }
}

const NONE_OPEN: ReadonlySet<XmlElement> = new Set()

/**
 * The root, for a reader that stops at the root's end tag (XStream's XPP3 and Jackson's Woodstox both
 * do): a fault after it is never met. A fault before that end is thrown.
 */
export function completeRoot(prefix: XmlPrefix): XmlElement {
  if (prefix.root === null || prefix.open.size > 0) throw prefix.fault!
  return prefix.root
}
