/**
 * What the pipeline reads of a request: the method, the path and the headers it uses, as strings.
 * The HTTP adapter copies them out of its request object; '' means absent (uWS answers '' for an
 * absent header, so an empty header counts as absent and the default applies).
 */
export interface CallHead {
  /** Lower case, as uWS gives it: 'post', 'options', ... */
  readonly method: string
  readonly url: string
  readonly contentType: string
  readonly accept: string
  readonly contentLength: string
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
  /** W3C Trace Context headers, as sent ('' when absent). */
  readonly traceparent: string
  readonly tracestate: string
  /** The Connection header, as sent ('' when absent). */
  readonly connection: string
  /**
   * False when the request carries identity headers (IDENTITY_HEADERS) from a peer not trusted to
   * send them: the pipeline then drops or refuses them (ENTRY_POINTS…trust.untrustedIdentity).
   */
  readonly identityTrusted: boolean
  /**
   * True when the request has Content-Length headers with different values. uWS frames the body by
   * the first one; RFC 9112 §6.3 says such a message is a 400 and its connection is closed.
   */
  readonly conflictingLength: boolean
  /**
   * True when the listener requires a client certificate (tls.clientCertificates.mode "require") and
   * the peer sent none: uWS cannot end such a handshake, so the call is refused (403
   * CLIENT_CERTIFICATE_REQUIRED).
   */
  readonly certificateMissing: boolean
  /**
   * The subject of the client certificate the listener verified, or that a trusted peer (a TLS
   * terminator in front) sent as X-PLATFORM-Certificate-Subject; '' when none. For the call's context.
   */
  readonly certificateSubject: string
}

/** A head as an adapter fills it in. */
export type MutableHead = { -readonly [K in keyof CallHead]: CallHead[K] }

/** A head with no headers: every field '' and identity trusted (nothing is claimed). */
export function blankHead(method: string, url: string): MutableHead {
  return {
    method,
    url,
    contentType: '',
    accept: '',
    contentLength: '',
    apiId: '',
    sequenceName: '',
    privilegeNames: '',
    locale: '',
    requestId: '',
    sessionId: '',
    user: '',
    clientApplicationName: '',
    ip: '',
    origin: '',
    traceparent: '',
    tracestate: '',
    connection: '',
    identityTrusted: true,
    conflictingLength: false,
    certificateMissing: false,
    certificateSubject: ''
  }
}

/** Whether a head carries any identity or privilege header. */
export function claimsIdentity(h: CallHead): boolean {
  return (
    h.ip !== '' ||
    h.user !== '' ||
    h.sessionId !== '' ||
    h.clientApplicationName !== '' ||
    h.privilegeNames !== '' ||
    h.certificateSubject !== ''
  )
}

export { PLATFORM_HEADERS } from '../../common/contract/http-names'

/** X-PLATFORM-Privilege-Names: names separated by ';', blanks dropped. */
export function splitNames(header: string): string[] {
  if (header === '') return []
  const out: string[] = []
  for (const part of header.split(';')) {
    const name = part.trim()
    if (name !== '') out.push(name)
  }
  return out
}
