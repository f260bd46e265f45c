import { scanXml, decodeText, type XmlHandler, DEFAULT_MAX_XML_DEPTH } from './scan'

/** An element of a parsed XML document. Text is decoded; `children` holds elements only. */
export interface XmlElement {
  name: string
  attributes: Array<[string, string]>
  children: XmlElement[]
  /** All character data directly inside the element, CDATA included, in order. */
  text: string
}

class TreeBuilder implements XmlHandler {
  readonly stack: XmlElement[] = []
  root: XmlElement | null = null
  constructor (private readonly b: Uint8Array) {}

  open (_depth: number, _start: number, nameStart: number, nameEnd: number, attrs: number[]): void {
    const b = this.b
    const attributes: Array<[string, string]> = []
    for (let k = 0; k < attrs.length; k += 4) {
      const v0 = attrs[k + 2]!
      const v1 = attrs[k + 3]!
      let hasRef = false
      for (let i = v0; i < v1; i++) if (b[i] === 0x26) { hasRef = true; break }
      // Attribute-value normalisation (XML 1.0 section 3.3.3): literal whitespace becomes a space.
      attributes.push([utf8(b, attrs[k]!, attrs[k + 1]!), decodeText(b, v0, v1, hasRef).replace(/[\t\n\r]/g, ' ')])
    }
    const el: XmlElement = { name: utf8(b, nameStart, nameEnd), attributes, children: [], text: '' }
    const parent = this.stack[this.stack.length - 1]
    if (parent !== undefined) parent.children.push(el)
    else this.root = el
    this.stack.push(el)
  }

  close (): void { this.stack.pop() }

  text (_depth: number, start: number, end: number, hasRefs: boolean): void {
    this.stack[this.stack.length - 1]!.text += decodeText(this.b, start, end, hasRefs)
  }

  cdata (_depth: number, start: number, end: number): void {
    this.stack[this.stack.length - 1]!.text += utf8(this.b, start, end)
  }
}

function utf8 (b: Uint8Array, start: number, end: number): string {
  return Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('utf8')
}

/** Parses a whole document (DOCTYPE refused, see scan.ts) into its root element. */
export function parseXml (b: Uint8Array, maxDepth = DEFAULT_MAX_XML_DEPTH): XmlElement {
  const builder = new TreeBuilder(b)
  scanXml(b, builder, maxDepth)
  return builder.root!
}
