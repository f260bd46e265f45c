import type { BodyFormat } from '../../common/contract/vocabulary'
import type { Failure } from '../../common/errors/codes'

type MediaFormat = BodyFormat | 'other'

interface MediaType {
  type: string
  subtype: string
  params: Map<string, string>
}

function parseMediaType(text: string): MediaType | null {
  const parts = text.split(';')
  const [type, subtype] = parts[0]!.trim().toLowerCase().split('/') as [string, string | undefined]
  if (subtype === undefined || type === '' || subtype === '') return null
  const params = new Map<string, string>()
  for (let k = 1; k < parts.length; k++) {
    const eq = parts[k]!.indexOf('=')
    if (eq < 0) continue
    params.set(
      parts[k]!.slice(0, eq).trim().toLowerCase(),
      parts[k]!.slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1')
    )
  }
  return { type, subtype, params }
}

/** JSON: application/json, application/*+json; XML: application/xml, text/xml, application/*+xml (docs/contract.md). */
function formatOf(type: string, subtype: string): MediaFormat {
  if (type === 'application') {
    if (subtype === 'json' || subtype.endsWith('+json')) return 'json'
    if (subtype === 'xml' || subtype.endsWith('+xml')) return 'xml'
  } else if (type === 'text' && subtype === 'xml') return 'xml'
  return 'other'
}

interface AcceptRange {
  type: string
  subtype: string
  q: number
  index: number
}

function parseAccept(header: string): AcceptRange[] {
  const out: AcceptRange[] = []
  header.split(',').forEach((item, index) => {
    const m = parseMediaType(item)
    if (m === null) return
    const q = m.params.has('q') ? Number(m.params.get('q')) : 1
    out.push({ type: m.type, subtype: m.subtype, q: Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0, index })
  })
  return out
}

/**
 * The q of a format under an Accept header, taken from the most specific range that matches it
 * (RFC 9110 section 12.5.1), and whether a range names the format explicitly (not a wildcard).
 */
function acceptance(ranges: AcceptRange[], format: BodyFormat): { q: number; named: boolean; index: number } {
  let best: AcceptRange | null = null
  let bestSpecificity = 0
  for (const r of ranges) {
    let specificity = 0
    if (r.type === '*' && r.subtype === '*') specificity = 1
    else if (r.subtype === '*')
      specificity = r.type === 'application' || (format === 'xml' && r.type === 'text') ? 2 : 0
    else if (formatOf(r.type, r.subtype) === format) specificity = 3
    if (
      specificity > bestSpecificity ||
      (specificity === bestSpecificity && specificity > 0 && best !== null && r.q > best.q)
    ) {
      best = r
      bestSpecificity = specificity
    }
  }
  return best === null
    ? { q: 0, named: false, index: Infinity }
    : { q: best.q, named: bestSpecificity === 3, index: best.index }
}

export type Negotiation = { format: BodyFormat } | Failure

/**
 * Clients send the same Content-Type and Accept on every request, so results are kept per header
 * pair. Bounded: a client that varies them cannot grow it without limit.
 */
const cache = new Map<string, Negotiation>()
const CACHE_LIMIT = 256

export function negotiateCached(contentType: string, accept: string): Negotiation {
  const key = contentType + '\n' + accept
  let r = cache.get(key)
  if (r === undefined) {
    r = negotiate(contentType, accept)
    if (cache.size >= CACHE_LIMIT) cache.clear()
    cache.set(key, r)
  }
  return r
}

/**
 * Decides the format of the body and of the answer from Content-Type and Accept (docs/contract.md, Headers): at least
 * one must name JSON or XML, and when both are sent they must agree.
 */
export function negotiate(contentType: string, accept: string): Negotiation {
  let ctFormat: BodyFormat | null = null
  if (contentType !== '') {
    const m = parseMediaType(contentType)
    const f = m === null ? 'other' : formatOf(m.type, m.subtype)
    if (f === 'other')
      return { code: 'UNSUPPORTED_MEDIA_TYPE', detail: `Content-Type '${contentType}' is neither JSON nor XML` }
    const charset = m!.params.get('charset')
    if (charset !== undefined && !/^utf-?8$/i.test(charset))
      return { code: 'UNSUPPORTED_MEDIA_TYPE', detail: `charset '${charset}' is not accepted; bodies must be UTF-8` }
    ctFormat = f
  }
  const ranges = accept === '' ? [] : parseAccept(accept)
  if (ctFormat !== null) {
    if (ranges.length === 0 || acceptance(ranges, ctFormat).q > 0) return { format: ctFormat }
    const other: BodyFormat = ctFormat === 'json' ? 'xml' : 'json'
    const detail =
      acceptance(ranges, other).q > 0
        ? `Content-Type names ${ctFormat.toUpperCase()} but Accept asks for ${other.toUpperCase()}; both must name the same format`
        : `Accept '${accept}' does not accept ${ctFormat.toUpperCase()}, the format of the body`
    return { code: 'FORMAT_MISMATCH', detail }
  }
  const json = acceptance(ranges, 'json')
  const xml = acceptance(ranges, 'xml')
  const jsonOk = json.q > 0 && json.named
  const xmlOk = xml.q > 0 && xml.named
  if (jsonOk && (!xmlOk || json.q > xml.q || (json.q === xml.q && json.index <= xml.index))) return { format: 'json' }
  if (xmlOk) return { format: 'xml' }
  return {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    detail:
      accept === ''
        ? 'send Content-Type (or Accept) naming JSON or XML'
        : `neither Content-Type nor Accept '${accept}' names JSON or XML`
  }
}

/** Format for an error body before negotiation settled it: whatever the headers lean to. */
export function guessFormat(contentType: string, accept: string): BodyFormat {
  const ct = parseMediaType(contentType)
  if (ct !== null && formatOf(ct.type, ct.subtype) === 'xml') return 'xml'
  if (ct === null && accept !== '') {
    const ranges = parseAccept(accept)
    if (acceptance(ranges, 'xml').named && !acceptance(ranges, 'json').named) return 'xml'
  }
  return 'json'
}
