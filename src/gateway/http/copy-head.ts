import type { HttpRequest } from 'uWebSockets.js'
import { REQUEST_ID_HEADER } from '../../common/contract/http-names'
import { blankHead, claimsIdentity, type CallHead, type MutableHead } from '../invoke/call-head'

/**
 * The head of a uWS request, copied out at once: uWS's HttpRequest is valid only during the route
 * callback. `url` replaces the path (the edge strips its prefix). Every head starts as
 * `blankHead`'s one object literal, so all heads share one shape.
 *
 * The headers are read in one pass with `forEach` (a request has a handful) rather than with a
 * `getHeader` per field (fifteen native calls). The first of repeated headers wins, as with getHeader.
 */
export function copyHead<R>(
  req: HttpRequest,
  res: R,
  trusts: (res: R) => boolean,
  url: string = req.getUrl()
): MutableHead {
  const head = blankHead(req.getMethod(), url)
  let seen = 0
  req.forEach((name, value) => {
    const field = HEADER_FIELDS.get(name)
    if (field === undefined) return
    const bit = 1 << field[1]
    if ((seen & bit) !== 0) {
      if (bit === CONTENT_LENGTH_BIT && value !== head.contentLength) head.conflictingLength = true
      return
    }
    seen |= bit
    head[field[0]] = value
  })
  // The peer is looked up only when it claims something (a benchmark's requests never do).
  if (claimsIdentity(head) && !trusts(res)) {
    head.identityTrusted = false
    // Dropped here rather than with the other claims: the listener's own verified certificate may
    // set it after (gateway.ts), and that one holds whoever the peer is.
    head.certificateSubject = ''
  }
  return head
}

type HeaderField = Exclude<
  keyof CallHead,
  'method' | 'url' | 'identityTrusted' | 'conflictingLength' | 'certificateMissing'
>

/** Header name (lower case, as uWS gives it) → the head's field and a bit for "already seen". */
const HEADER_FIELDS = new Map<string, [HeaderField, number]>(
  (
    [
      ['content-type', 'contentType'],
      ['accept', 'accept'],
      ['content-length', 'contentLength'],
      ['x-platform-api-id', 'apiId'],
      ['x-platform-sequence-name', 'sequenceName'],
      ['x-platform-privilege-names', 'privilegeNames'],
      ['x-platform-locale', 'locale'],
      [REQUEST_ID_HEADER.toLowerCase(), 'requestId'],
      ['x-platform-session-id', 'sessionId'],
      ['x-platform-user', 'user'],
      ['x-platform-client-application-name', 'clientApplicationName'],
      ['x-platform-ip', 'ip'],
      ['x-platform-certificate-subject', 'certificateSubject'],
      ['origin', 'origin'],
      ['traceparent', 'traceparent'],
      ['tracestate', 'tracestate'],
      ['connection', 'connection']
    ] as Array<[string, HeaderField]>
  ).map(([name, field], k) => [name, [field, k]])
)

const CONTENT_LENGTH_BIT = 1 << HEADER_FIELDS.get('content-length')![1]

/**
 * The client's address. Formatted from uWS's binary form: an IPv4 (or IPv4-mapped) address is four
 * numbers, much cheaper than getRemoteAddressAsText plus a UTF-8 decode.
 * The text of an IPv4 address is kept (IPV4_TEXTS): building it from four numbers per request made
 * a string of seven pieces that Node then flattened again to write it into the Invoke frame.
 */
export function remoteAddress(res: { getRemoteAddress(): ArrayBuffer; getRemoteAddressAsText(): ArrayBuffer }): string {
  const b = new Uint8Array(res.getRemoteAddress())
  if (b.length === 4) return ipv4Text(b, 0)
  if (b.length === 16 && b[10] === 0xff && b[11] === 0xff && isZero(b, 10)) return ipv4Text(b, 12)
  return Buffer.from(res.getRemoteAddressAsText()).toString()
}

/** Texts of the IPv4 addresses seen, by address; emptied when full, so a scan of many addresses cannot grow it. */
const IPV4_TEXTS = new Map<number, string>()
const IPV4_TEXTS_MAX = 4096

function ipv4Text(b: Uint8Array, at: number): string {
  const key = ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0
  let text = IPV4_TEXTS.get(key)
  if (text === undefined) {
    if (IPV4_TEXTS.size >= IPV4_TEXTS_MAX) IPV4_TEXTS.clear()
    // Joined, not concatenated: a flat string.
    text = [b[at], b[at + 1], b[at + 2], b[at + 3]].join('.')
    IPV4_TEXTS.set(key, text)
  }
  return text
}

function isZero(b: Uint8Array, n: number): boolean {
  for (let k = 0; k < n; k++) if (b[k] !== 0) return false
  return true
}
