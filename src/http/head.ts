import type { HttpRequest } from 'uWebSockets.js'

/**
 * What the gateway needs from a request, copied out at once: uWS's HttpRequest is valid only
 * during the route callback. Every field is assigned in the constructor so all heads share one shape.
 * uWS answers '' for an absent header, so an empty header counts as absent (the default applies).
 */
export class RequestHead {
  readonly method: string
  readonly url: string
  readonly contentType: string
  readonly accept: string
  readonly contentLength: string
  readonly transferEncoding: string
  readonly apiId: string
  readonly sequenceName: string
  readonly privilegeNames: string
  readonly locale: string
  readonly requestId: string
  readonly sessionId: string
  readonly user: string
  readonly clientApplicationName: string
  readonly ip: string
  readonly origin: string

  constructor (req: HttpRequest) {
    this.method = req.getMethod()
    this.url = req.getUrl()
    this.contentType = req.getHeader('content-type')
    this.accept = req.getHeader('accept')
    this.contentLength = req.getHeader('content-length')
    this.transferEncoding = req.getHeader('transfer-encoding')
    this.apiId = req.getHeader('x-platform-api-id')
    this.sequenceName = req.getHeader('x-platform-sequence-name')
    this.privilegeNames = req.getHeader('x-platform-privilege-names')
    this.locale = req.getHeader('x-platform-locale')
    this.requestId = req.getHeader('x-platform-request-id')
    this.sessionId = req.getHeader('x-platform-session-id')
    this.user = req.getHeader('x-platform-user')
    this.clientApplicationName = req.getHeader('x-platform-client-application-name')
    this.ip = req.getHeader('x-platform-ip')
    this.origin = req.getHeader('origin')
  }
}

/** The nine X-PLATFORM-* request headers of SPEC, in their canonical spelling. */
export const PLATFORM_HEADERS = [
  'X-PLATFORM-API-ID',
  'X-PLATFORM-Privilege-Names',
  'X-PLATFORM-Locale',
  'X-PLATFORM-Sequence-Name',
  'X-PLATFORM-Request-ID',
  'X-PLATFORM-Session-ID',
  'X-PLATFORM-User',
  'X-PLATFORM-Client-Application-Name',
  'X-PLATFORM-IP'
] as const

/** /{microservice}/{service}/{method} → the three names, or null. Names are percent-decoded. */
export function parseRoute (url: string): [string, string, string] | null {
  if (url.charCodeAt(0) !== 0x2f) return null
  const a = url.indexOf('/', 1)
  if (a < 0) return null
  const b = url.indexOf('/', a + 1)
  if (b < 0) return null
  if (url.indexOf('/', b + 1) >= 0) return null
  let ms = url.slice(1, a)
  let svc = url.slice(a + 1, b)
  let m = url.slice(b + 1)
  if (ms === '' || svc === '' || m === '') return null
  if (url.includes('%')) {
    try {
      ms = decodeURIComponent(ms)
      svc = decodeURIComponent(svc)
      m = decodeURIComponent(m)
    } catch {
      return null
    }
  }
  return [ms, svc, m]
}
