import type { HttpResponse } from 'uWebSockets.js'
import { statusLine } from '../../common/errors/problem'
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

/** Writes one whole response inside cork(), so status, headers and body leave in one syscall. */
export function writeAnswer(res: HttpResponse, cors: CorsPolicy, a: Answer): void {
  res.cork(() => {
    res.writeStatus(statusLine(a.status))
    if (a.contentType !== null) res.writeHeader('Content-Type', a.contentType)
    res.writeHeader('X-PLATFORM-Request-ID', a.requestId)
    res.writeHeader('X-Content-Type-Options', 'nosniff')
    if (a.headers !== null)
      for (let k = 0; k < a.headers.length; k += 2) res.writeHeader(a.headers[k]!, a.headers[k + 1]!)
    writeCors(res, cors, a.origin)
    if (a.status === 204) res.endWithoutBody(0, a.close)
    else res.end(a.body, a.close)
  })
}
