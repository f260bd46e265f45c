import { SyntaxErrorAt } from '../errors/syntax'

/**
 * A validating XML 1.0 scanner over UTF-8 bytes. It checks well-formedness (matching tags,
 * attribute syntax, unique attributes, references, comments, CDATA, processing instructions) and
 * reports events with byte offsets, so the gateway can cut each argument out of the body exactly
 * as sent. DOCTYPE is refused outright: no DTD means no entity can be declared or expanded, which
 * closes billion-laughs and external-entity attacks before any parsing happens.
 */

export class XmlSyntaxError extends SyntaxErrorAt {}

/** A document past one of our read limits (depth, elements, text length): ours, not a fault of XML's. */
export class XmlLimitError extends XmlSyntaxError {}

export const DEFAULT_MAX_XML_DEPTH = 1000

/** Receives the document's structure. Offsets index the scanned bytes. */
export interface XmlHandler {
  /**
   * `start` is the offset of '<'; the name is b[nameStart, nameEnd). Attribute offsets come in fours:
   * name start/end, value start/end (value without quotes, undecoded).
   */
  open(depth: number, start: number, nameStart: number, nameEnd: number, attrs: number[]): void
  /** `end` is the offset after the closing '>' (of the end tag, or of '/>'). */
  close(depth: number, end: number): void
  /** Character data b[start, end), undecoded; `hasRefs` when it contains '&'. Only inside the root. */
  text(depth: number, start: number, end: number, hasRefs: boolean): void
  /** CDATA section content b[start, end). */
  cdata(depth: number, start: number, end: number): void
}

const LT = 0x3c
const GT = 0x3e
const AMP = 0x26
const SLASH = 0x2f
const QMARK = 0x3f
const BANG = 0x21
const EQ = 0x3d

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d
}

function isNameStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x3a || c >= 0x80
}

function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e
}

function startsWith(b: Uint8Array, i: number, s: string): boolean {
  if (i + s.length > b.length) return false
  for (let k = 0; k < s.length; k++) if (b[i + k] !== s.charCodeAt(k)) return false
  return true
}

function indexOf(b: Uint8Array, i: number, s: string): number {
  const first = s.charCodeAt(0)
  const n = b.length - s.length
  for (; i <= n; i++) if (b[i] === first && startsWith(b, i, s)) return i
  return -1
}

/**
 * Code points a character reference may name while scanning: any but the surrogates. Wider than
 * XML 1.0's Char production on purpose: XStream writes NUL, U+0001 or U+FFFF as &#x0;, &#x1;,
 * &#xffff; and its XPP3 parser reads them back, so the alpha family's own output must pass the
 * gateway. Readers that follow XML 1.0 (Woodstox, the beta family) narrow it with isXmlChar.
 */
function isReferable(cp: number): boolean {
  return (cp >= 0 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0x10ffff)
}

/** XML 1.0's Char production (section 2.2). */
export function isXmlChar(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  )
}

/** Predefined entities; XML without a DTD knows no others. */
export const PREDEFINED_ENTITIES: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  apos: "'",
  quot: '"'
}

/** i points at '&'; validates the reference and returns the index after ';'. */
function scanReference(b: Uint8Array, i: number): number {
  const semi = b.indexOf(0x3b, i + 1)
  if (semi < 0 || semi - i > 12) throw new XmlSyntaxError("'&' must start a reference such as &amp;", i)
  if (b[i + 1] === 0x23) {
    // &#...;
    const hex = b[i + 2] === 0x78
    const text = String.fromCharCode(...b.subarray(i + (hex ? 3 : 2), semi))
    const ok = hex ? /^[0-9a-fA-F]+$/.test(text) : /^[0-9]+$/.test(text)
    if (!ok || !isReferable(parseInt(text, hex ? 16 : 10))) throw new XmlSyntaxError('invalid character reference', i)
    return semi + 1
  }
  const name = String.fromCharCode(...b.subarray(i + 1, semi))
  if (!Object.prototype.hasOwnProperty.call(PREDEFINED_ENTITIES, name)) {
    throw new XmlSyntaxError(`undefined entity '&${name};' (entity declarations are not accepted)`, i)
  }
  return semi + 1
}

function scanName(b: Uint8Array, i: number): number {
  if (i >= b.length || !isNameStart(b[i]!)) throw new XmlSyntaxError('name expected', i)
  i++
  while (i < b.length && isNameChar(b[i]!)) i++
  return i
}

function skipSpaces(b: Uint8Array, i: number): number {
  while (isSpace(b[i])) i++
  return i
}

function sameBytes(b: Uint8Array, a0: number, a1: number, c0: number, c1: number): boolean {
  if (a1 - a0 !== c1 - c0) return false
  for (let k = 0; k < a1 - a0; k++) if (b[a0 + k] !== b[c0 + k]) return false
  return true
}

/** i points after '<!--'; returns the index after '-->'. */
function scanComment(b: Uint8Array, i: number): number {
  const end = indexOf(b, i, '--')
  if (end < 0) throw new XmlSyntaxError('unterminated comment', i)
  if (b[end + 2] !== GT) throw new XmlSyntaxError("'--' inside a comment", end)
  return end + 3
}

/** i points after '<?'; returns the index after '?>'. */
function scanPi(b: Uint8Array, i: number, allowDeclaration: boolean, versions: readonly string[] | null): number {
  const nameEnd = scanName(b, i)
  const isDecl =
    nameEnd - i === 3 && (b[i]! | 0x20) === 0x78 && (b[i + 1]! | 0x20) === 0x6d && (b[i + 2]! | 0x20) === 0x6c
  if (isDecl && !allowDeclaration) throw new XmlSyntaxError('XML declaration is only allowed at the very start', i - 2)
  const end = indexOf(b, nameEnd, '?>')
  if (end < 0) throw new XmlSyntaxError('unterminated processing instruction', i)
  if (isDecl) {
    const decl = Buffer.from(b.buffer, b.byteOffset + nameEnd, end - nameEnd).toString('latin1')
    const version = /version\s*=\s*["']([^"']*)["']/.exec(decl)?.[1]
    if (versions !== null && version !== undefined && !versions.includes(version))
      throw new XmlSyntaxError(`XML version '${version}' is not read here (only ${versions.join(' or ')})`, i)
    const enc = /encoding\s*=\s*["']([^"']*)["']/.exec(decl)
    if (enc !== null && !/^utf-?8$/i.test(enc[1]!))
      throw new XmlSyntaxError(`encoding '${enc[1]}' is not accepted, only UTF-8`, i)
  }
  return end + 2
}

/** Validates character data b[i, end) and returns whether it contains references. */
function checkText(b: Uint8Array, i: number, end: number): boolean {
  let refs = false
  while (i < end) {
    const c = b[i]!
    if (c === AMP) {
      i = scanReference(b, i)
      refs = true
      continue
    }
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) throw new XmlSyntaxError('control character in text', i)
    if (c === 0x5d && b[i + 1] === 0x5d && b[i + 2] === GT) throw new XmlSyntaxError("']]>' in text", i)
    i++
  }
  return refs
}

/**
 * Scans a whole document and reports its structure to `h`. Throws XmlSyntaxError at the first
 * violation. Returns the offset after the root element.
 */
export function scanXml(
  b: Uint8Array,
  h: XmlHandler,
  maxDepth = DEFAULT_MAX_XML_DEPTH,
  versions: readonly string[] | null = null
): number {
  const n = b.length
  let i = n >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0
  const docStart = i
  // Element name ranges of the open elements, for end-tag matching.
  const names: number[] = []
  let depth = 0
  let rootEnd = -1
  const attrs: number[] = []

  while (i < n) {
    const c = b[i]!
    if (c !== LT) {
      // Character data: only inside the root; outside it, only whitespace.
      let j = i
      while (j < n && b[j] !== LT) j++
      if (depth === 0) {
        for (let k = i; k < j; k++)
          if (!isSpace(b[k]))
            throw new XmlSyntaxError(
              rootEnd < 0 ? 'content before the root element' : 'content after the root element',
              k
            )
      } else {
        h.text(depth, i, j, checkText(b, i, j))
      }
      i = j
      continue
    }
    const d = b[i + 1]
    if (d === BANG) {
      if (startsWith(b, i, '<!--')) {
        i = scanComment(b, i + 4)
        continue
      }
      if (startsWith(b, i, '<![CDATA[')) {
        if (depth === 0) throw new XmlSyntaxError('CDATA outside the root element', i)
        const end = indexOf(b, i + 9, ']]>')
        if (end < 0) throw new XmlSyntaxError('unterminated CDATA section', i)
        h.cdata(depth, i + 9, end)
        i = end + 3
        continue
      }
      if (startsWith(b, i, '<!DOCTYPE')) throw new XmlSyntaxError('DOCTYPE declarations are not accepted', i)
      throw new XmlSyntaxError('markup declarations are not accepted', i)
    }
    if (d === QMARK) {
      i = scanPi(b, i + 2, i === docStart, versions)
      continue
    }
    if (d === SLASH) {
      if (depth === 0) throw new XmlSyntaxError('end tag without a start tag', i)
      const nameEnd = scanName(b, i + 2)
      const open0 = names[names.length - 2]!
      const open1 = names[names.length - 1]!
      if (!sameBytes(b, i + 2, nameEnd, open0, open1)) {
        throw new XmlSyntaxError(
          `end tag </${Buffer.from(b.subarray(i + 2, nameEnd)).toString()}> does not match <${Buffer.from(b.subarray(open0, open1)).toString()}>`,
          i
        )
      }
      const gt = skipSpaces(b, nameEnd)
      if (b[gt] !== GT) throw new XmlSyntaxError("'>' expected", gt)
      names.length -= 2
      i = gt + 1
      h.close(depth, i)
      depth--
      if (depth === 0) rootEnd = i
      continue
    }
    // Start tag.
    if (depth === 0 && rootEnd >= 0) throw new XmlSyntaxError('a second root element', i)
    if (depth >= maxDepth) throw new XmlLimitError(`nesting deeper than ${maxDepth} levels`, i)
    const start = i
    const nameStart = i + 1
    const nameEnd = scanName(b, nameStart)
    attrs.length = 0
    i = nameEnd
    for (;;) {
      const afterSpace = skipSpaces(b, i)
      const e = b[afterSpace]
      if (e === GT || e === SLASH) {
        i = afterSpace
        break
      }
      if (afterSpace === i)
        throw new XmlSyntaxError(
          e === undefined ? 'unterminated start tag' : 'whitespace expected before an attribute',
          i
        )
      const an0 = afterSpace
      const an1 = scanName(b, an0)
      let k = skipSpaces(b, an1)
      if (b[k] !== EQ) throw new XmlSyntaxError("'=' expected after an attribute name", k)
      k = skipSpaces(b, k + 1)
      const q = b[k]
      if (q !== 0x22 && q !== 0x27) throw new XmlSyntaxError('quoted attribute value expected', k)
      const v0 = k + 1
      let v1 = v0
      while (v1 < n && b[v1] !== q) {
        if (b[v1] === LT) throw new XmlSyntaxError("'<' in an attribute value", v1)
        if (b[v1] === AMP) {
          v1 = scanReference(b, v1)
          continue
        }
        v1++
      }
      if (v1 >= n) throw new XmlSyntaxError('unterminated attribute value', v0)
      for (let a = 0; a < attrs.length; a += 4) {
        if (sameBytes(b, attrs[a]!, attrs[a + 1]!, an0, an1)) throw new XmlSyntaxError('duplicate attribute', an0)
      }
      attrs.push(an0, an1, v0, v1)
      i = v1 + 1
    }
    depth++
    h.open(depth, start, nameStart, nameEnd, attrs)
    if (b[i] === SLASH) {
      if (b[i + 1] !== GT) throw new XmlSyntaxError("'>' expected after '/'", i + 1)
      i += 2
      h.close(depth, i)
      depth--
      if (depth === 0) rootEnd = i
    } else {
      names.push(nameStart, nameEnd)
      i++
    }
  }
  if (depth > 0) throw new XmlSyntaxError('unexpected end of XML: unclosed element', n)
  if (rootEnd < 0)
    throw new XmlSyntaxError(n === docStart ? 'empty body, an XML document expected' : 'no root element', n)
  return rootEnd
}

/**
 * Decodes character data or an attribute value: the five predefined entities and character
 * references. With `xml10`, a reference to a code point outside XML 1.0's Char is refused, as
 * Woodstox refuses it.
 */
export function decodeText(
  b: Uint8Array,
  start: number,
  end: number,
  hasRefs: boolean,
  xml10 = false,
  attribute = false
): string {
  // XML 1.0 section 2.11: CRLF and lone CR are read as LF; a CR written as &#xd; survives.
  let raw = Buffer.from(b.buffer, b.byteOffset + start, end - start)
    .toString('utf8')
    .replace(/\r\n?/g, '\n')
  // Attribute-value normalisation (section 3.3.3): literal whitespace becomes a space, before
  // references are replaced, so that a &#xd; or &#9; written by the writer survives.
  if (attribute) raw = raw.replace(/[\t\n]/g, ' ')
  if (!hasRefs) return raw
  return raw.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (_m, ref: string) => {
    if (ref.charCodeAt(0) !== 0x23) return PREDEFINED_ENTITIES[ref]!
    const cp = ref.charCodeAt(1) === 0x78 ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10)
    if (xml10 && !isXmlChar(cp))
      throw new XmlSyntaxError(`character reference &${ref}; names a character XML 1.0 does not allow`, start)
    return String.fromCodePoint(cp)
  })
}
