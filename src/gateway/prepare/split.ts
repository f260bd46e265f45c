import { isUtf8 } from 'node:buffer'
import { skipBom, splitJsonArray, validateJsonDocument } from '../../common/json/scan'
import { DEFAULT_MAX_DEPTH } from '../../common/contract/limits'
import { PARAM_ARRAY, type ApiMode, type BodyFormat } from '../../common/contract/vocabulary'
import { scanXml, XmlSyntaxError, type XmlHandler } from '../../common/xml/scan'
import { SyntaxErrorAt } from '../../common/errors/syntax'
import { GatewayError } from '../../common/errors/codes'

/**
 * Cuts a request body into its arguments: [start0, end0, start1, end1, ...], byte offsets into
 * `body`, so each argument travels exactly as the client wrote it. ROA: the whole body, after
 * checking it is one well-formed document. RMC: the elements of the JSON array, or the child
 * elements of the XML paramArray root. Throws GatewayError(MALFORMED_BODY).
 */
export function splitArguments(
  body: Uint8Array,
  mode: ApiMode,
  format: BodyFormat,
  maxDepth = DEFAULT_MAX_DEPTH
): number[] {
  if (!isUtf8(body)) throw new GatewayError('MALFORMED_BODY', 'the body is not valid UTF-8')
  try {
    if (format === 'json') {
      if (mode === 'RMC') return splitJsonArray(body, maxDepth)
      validateJsonDocument(body, maxDepth)
      // A BOM belongs to the body's encoding, not to the argument (Java's readers of a String refuse it).
      return [skipBom(body), body.length]
    }
    if (mode === 'RMC') return splitParamArray(body, maxDepth)
    scanXml(body, IGNORE, maxDepth)
    return [skipBom(body), body.length]
  } catch (err) {
    if (err instanceof SyntaxErrorAt) {
      throw new GatewayError('MALFORMED_BODY', `malformed ${format === 'json' ? 'JSON' : 'XML'} body: ${err.message}`)
    }
    throw err
  }
}

const IGNORE: XmlHandler = { open() {}, close() {}, text() {}, cdata() {} }

/** Collects the child elements of the root, and checks the root is paramArray with nothing else in it. */
class ParamArraySplitter implements XmlHandler {
  readonly slices: number[] = []
  constructor(private readonly body: Uint8Array) {}

  open(depth: number, start: number, nameStart: number, nameEnd: number): void {
    if (depth === 1) {
      const name = Buffer.from(this.body.buffer, this.body.byteOffset + nameStart, nameEnd - nameStart).toString()
      if (name !== PARAM_ARRAY)
        throw new XmlSyntaxError(`an RMC body must have the root element <${PARAM_ARRAY}>, not <${name}>`, start)
    } else if (depth === 2) {
      this.slices.push(start, -1)
    }
  }

  close(depth: number, end: number): void {
    if (depth === 2) this.slices[this.slices.length - 1] = end
  }

  text(depth: number, start: number, end: number): void {
    if (depth !== 1) return
    for (let i = start; i < end; i++) {
      const c = this.body[i]
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09)
        throw new XmlSyntaxError(`text directly inside <${PARAM_ARRAY}>; each argument must be an element`, i)
    }
  }

  cdata(depth: number, start: number): void {
    if (depth === 1)
      throw new XmlSyntaxError(`CDATA directly inside <${PARAM_ARRAY}>; each argument must be an element`, start)
  }
}

function splitParamArray(body: Uint8Array, maxDepth: number): number[] {
  const splitter = new ParamArraySplitter(body)
  scanXml(body, splitter, maxDepth)
  return splitter.slices
}
