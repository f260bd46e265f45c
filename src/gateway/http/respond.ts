// Every answer of the gateway and the edge is written here: the calls' (writeAnswer, with the
// refusals' and the preflight's headers the answer carries), the pages (the edge's, the gateway's
// index: writePage) and the index's 503. The names come from http-names.ts (HEADER); a unit test
// holds that no other module writes a status or a header.
import type { HttpResponse } from 'uWebSockets.js'
import { statusLine } from '../../common/errors/problem'
import { HEADER } from '../../common/contract/http-names'
import { EXPOSED_HEADERS, type Answer, type CorsPolicy } from '../invoke/answer'

/** Writes the CORS response headers for a request that carried Origin. */
export function writeCors(res: HttpResponse, cors: CorsPolicy, origin: string): void {
  if (origin === '') return
  if (cors.anyOrigin) {
    res.writeHeader(HEADER.allowOrigin, '*')
  } else if (cors.origins.has(origin)) {
    res.writeHeader(HEADER.allowOrigin, origin)
    res.writeHeader(HEADER.vary, 'Origin')
  } else {
    return
  }
  res.writeHeader(HEADER.exposeHeaders, EXPOSED_HEADERS)
}

const NOSNIFF = 'nosniff'
/** Appended to a Content-Type value, it writes X-Content-Type-Options in the same call. */
const NOSNIFF_LINE = `\r\n${HEADER.contentTypeOptions}: ${NOSNIFF}`

/**
 * Writes one whole response inside cork(), so status, headers and body leave in one syscall.
 *
 * Each writeHeader is a call into uWS with a fixed price, whatever it writes, and uWS copies the value as
 * it is: `name: value\r\n` (docs/performance.md, "the gateway's own headers in one call"). So the headers the
 * gateway makes itself leave in one call, as whole lines after the first: Content-Type (or
 * X-Content-Type-Options alone), nosniff, and the answer's extra headers (Answer.headers: never from a
 * request). The request id, which a client may choose, keeps a call of its own.
 */
export function writeAnswer(res: HttpResponse, cors: CorsPolicy, a: Answer): void {
  res.cork(() => {
    res.writeStatus(statusLine(a.status))
    const extra = a.headers === null ? '' : headerLines(a.headers)
    if (a.contentType !== null) res.writeHeader(HEADER.contentType, a.contentType + NOSNIFF_LINE + extra)
    else res.writeHeader(HEADER.contentTypeOptions, NOSNIFF + extra)
    res.writeHeader(HEADER.requestId, a.requestId)
    writeCors(res, cors, a.origin)
    if (a.status === 204) res.endWithoutBody(0, a.close)
    else res.end(a.body, a.close)
  })
}

/** Name/value pairs as whole header lines, each after a CRLF: `\r\nname: value…`. */
function headerLines(headers: readonly string[]): string {
  let lines = ''
  for (let k = 0; k < headers.length; k += 2) lines = `${lines}\r\n${headers[k]!}: ${headers[k + 1]!}`
  return lines
}

/**
 * A page of the edge or the gateway's index, whole: its type, how long it may be cached, and the request
 * id when it is a problem (which has one).
 */
export function writePage(
  res: HttpResponse,
  status: number,
  type: string,
  body: string | Uint8Array,
  cache = 'no-cache',
  requestId = ''
): void {
  res.cork(() => {
    res.writeStatus(statusLine(status))
    if (requestId !== '') res.writeHeader(HEADER.requestId, requestId)
    res.writeHeader(HEADER.contentType, type)
    res.writeHeader(HEADER.cacheControl, cache)
    res.writeHeader(HEADER.contentTypeOptions, NOSNIFF)
    res.end(body)
  })
}

/** 503 without a body: what the gateway's index answers when the main thread did not give it one. */
export function writeUnavailable(res: HttpResponse): void {
  res.cork(() => res.writeStatus(statusLine(503)).end())
}
