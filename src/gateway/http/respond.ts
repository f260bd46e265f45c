import type { HttpResponse } from 'uWebSockets.js'
import { statusLine } from '../../common/errors/problem'
import { REQUEST_ID_HEADER } from '../../common/contract/http-names'
import { EXPOSED_HEADERS, type Answer, type CorsPolicy } from '../invoke/answer'

/** Writes the CORS response headers for a request that carried Origin. */
export function writeCors(res: HttpResponse, cors: CorsPolicy, origin: string): void {
  if (origin === '') return
  if (cors.anyOrigin) {
    res.writeHeader('Access-Control-Allow-Origin', '*')
  } else if (cors.origins.has(origin)) {
    res.writeHeader('Access-Control-Allow-Origin', origin)
    res.writeHeader('Vary', 'Origin')
  } else {
    return
  }
  res.writeHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS)
}

const NOSNIFF = 'nosniff'
/** Appended to a Content-Type value, it writes X-Content-Type-Options in the same call. */
const NOSNIFF_LINE = `\r\nX-Content-Type-Options: ${NOSNIFF}`

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
    if (a.contentType !== null) res.writeHeader('Content-Type', a.contentType + NOSNIFF_LINE + extra)
    else res.writeHeader('X-Content-Type-Options', NOSNIFF + extra)
    res.writeHeader(REQUEST_ID_HEADER, a.requestId)
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
