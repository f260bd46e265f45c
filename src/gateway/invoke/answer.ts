import { toProblem, renderProblemJson, renderProblemXml } from '../../common/errors/problem'
import type { Failure } from '../../common/errors/codes'
import type { BodyFormat } from '../../common/contract/vocabulary'
import { PLATFORM_HEADERS } from './call-head'
import { HEADER, IDENTITY_HEADERS } from '../../common/contract/http-names'

/** One whole HTTP answer, as data: the HTTP adapter writes it in one corked write. */
export interface Answer {
  status: number
  contentType: string | null
  body: string | Uint8Array
  requestId: string
  origin: string
  /**
   * Extra headers, name/value pairs, made by the gateway alone (never copied from a request): they are
   * written as whole lines in one call (http/respond.ts), so no name or value may hold CR or LF.
   */
  headers: string[] | null
  /** Close the connection after answering (a body we refused to read is still on it). */
  close: boolean
}

export const CONTENT_TYPES: Record<BodyFormat, string> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8'
}

const PROBLEM_TYPES: Record<BodyFormat, string> = {
  json: 'application/problem+json; charset=utf-8',
  xml: 'application/problem+xml; charset=utf-8'
}

export const ALLOW = 'POST, OPTIONS'
/** What a preflight lets a page send: the identity and privilege headers only when configured. */
export function allowedHeaders(identity: boolean): string {
  const names: string[] = PLATFORM_HEADERS.filter(
    (h) => identity || !(IDENTITY_HEADERS as readonly string[]).includes(h)
  )
  return [HEADER.contentType, HEADER.accept, ...names].join(', ')
}
/** What a page may read of an answer: the request id, and when to call again (docs/rate-limits.md). */
export const EXPOSED_HEADERS = [HEADER.requestId, HEADER.retryAfter, HEADER.rateLimitPolicy, HEADER.rateLimit].join(
  ', '
)

export interface CorsPolicy {
  /** '*' allows any origin. */
  readonly anyOrigin: boolean
  readonly origins: ReadonlySet<string>
  readonly maxAge: string
  readonly allowedHeaders: string
}

export function corsPolicy(
  allowedOrigins: readonly string[],
  maxAgeSeconds: number,
  identityHeaders = false
): CorsPolicy {
  return {
    anyOrigin: allowedOrigins.includes('*'),
    origins: new Set(allowedOrigins),
    maxAge: String(maxAgeSeconds),
    allowedHeaders: allowedHeaders(identityHeaders)
  }
}

export function allowsOrigin(cors: CorsPolicy, origin: string): boolean {
  return origin !== '' && (cors.anyOrigin || cors.origins.has(origin))
}

/** The answer to an OPTIONS request: 204 with Allow, and the preflight headers for an allowed origin. */
export function preflightAnswer(cors: CorsPolicy, origin: string, requestId: string): Answer {
  const headers: string[] = [HEADER.allow, ALLOW]
  if (allowsOrigin(cors, origin)) {
    headers.push(HEADER.allowMethods, ALLOW, HEADER.allowHeaders, cors.allowedHeaders, HEADER.maxAge, cors.maxAge)
  }
  return { status: 204, contentType: null, body: '', requestId, origin, headers, close: false }
}

/** The problem body and headers of a failure; 503 gets Retry-After, 405 gets Allow. */
export function problemAnswer(
  f: Failure,
  format: BodyFormat,
  requestId: string,
  origin: string,
  retryAfter: string
): Answer {
  const problem = toProblem(f, requestId)
  let headers: string[] | null = null
  if (problem.status === 503) headers = [HEADER.retryAfter, retryAfter]
  else if (f.code === 'METHOD_NOT_ALLOWED') headers = [HEADER.allow, ALLOW]
  return {
    status: problem.status,
    contentType: PROBLEM_TYPES[format],
    body: format === 'xml' ? renderProblemXml(problem) : renderProblemJson(problem),
    requestId,
    origin,
    headers,
    // uWS skips an unread Content-Length body and keeps the connection; 413 closes it, so the client
    // stops sending what we will not read, and so does a request whose body's end is in doubt or late.
    close: f.code === 'BODY_TOO_LARGE' || f.code === 'MALFORMED_REQUEST' || f.code === 'BODY_TIMEOUT'
  }
}
