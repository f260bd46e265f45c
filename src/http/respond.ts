import type { HttpResponse } from 'uWebSockets.js'
import { toProblem, renderProblemJson, renderProblemXml, statusLine } from '../errors/problem'
import { codes, type Failure } from '../errors/codes'
import type { BodyFormat } from '../args/split'
import { PLATFORM_HEADERS } from './head'

export const CONTENT_TYPES: Record<BodyFormat, string> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8'
}

const PROBLEM_TYPES: Record<BodyFormat, string> = {
  json: 'application/problem+json; charset=utf-8',
  xml: 'application/problem+xml; charset=utf-8'
}

export const ALLOW = 'POST, OPTIONS'
export const ALLOWED_HEADERS = ['Content-Type', 'Accept', ...PLATFORM_HEADERS].join(', ')
export const EXPOSED_HEADERS = 'X-PLATFORM-Request-ID'

export interface CorsPolicy {
  /** '*' allows any origin. */
  readonly anyOrigin: boolean
  readonly origins: ReadonlySet<string>
  readonly maxAge: string
}

export function corsPolicy (allowedOrigins: readonly string[], maxAgeSeconds: number): CorsPolicy {
  return { anyOrigin: allowedOrigins.includes('*'), origins: new Set(allowedOrigins), maxAge: String(maxAgeSeconds) }
}

/** Writes the CORS response headers for a request that carried Origin. */
export function writeCors (res: HttpResponse, cors: CorsPolicy, origin: string): void {
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

export interface Answer {
  status: number
  contentType: string | null
  body: string | Uint8Array
  requestId: string
  origin: string
  /** Extra headers, name/value pairs. */
  headers: string[] | null
  /** Close the connection after answering (a body we refused to read is still on it). */
  close: boolean
}

/** Writes one whole response inside cork(), so status, headers and body leave in one syscall. */
export function writeAnswer (res: HttpResponse, cors: CorsPolicy, a: Answer): void {
  res.cork(() => {
    res.writeStatus(statusLine(a.status))
    if (a.contentType !== null) res.writeHeader('Content-Type', a.contentType)
    res.writeHeader('X-PLATFORM-Request-ID', a.requestId)
    if (a.headers !== null) for (let k = 0; k < a.headers.length; k += 2) res.writeHeader(a.headers[k]!, a.headers[k + 1]!)
    writeCors(res, cors, a.origin)
    if (a.status === 204) res.endWithoutBody(0, a.close)
    else res.end(a.body, a.close)
  })
}

/** The problem body and headers of a failure; 503 gets Retry-After, 405 gets Allow. */
export function problemAnswer (f: Failure, format: BodyFormat, requestId: string, origin: string, retryAfter: string): Answer {
  const problem = toProblem(f, requestId)
  let headers: string[] | null = null
  if (problem.status === 503) headers = ['Retry-After', retryAfter]
  else if (f.code === 'METHOD_NOT_ALLOWED') headers = ['Allow', ALLOW]
  return {
    status: problem.status,
    contentType: PROBLEM_TYPES[format],
    body: format === 'xml' ? renderProblemXml(problem) : renderProblemJson(problem),
    requestId,
    origin,
    headers,
    close: f.code === 'BODY_TOO_LARGE'
  }
}

export { codes }
