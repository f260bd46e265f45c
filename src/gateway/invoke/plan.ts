import {
  isApiMode,
  isSequenceName,
  SEQUENCES,
  type ApiMode,
  type BodyFormat,
  type SequenceName
} from '../../common/contract/vocabulary'
import { roaRule } from '../../common/contract/rules'
import { bounded } from './echo'
import type { Failure } from '../../common/errors/codes'
import type { MethodInfo } from '../dispatch/catalog'
import type { GatewayConfig } from '../../common/config/config'
import type { CallHead } from './call-head'
import type { Backend, Backends } from './interfaces'
import { parseRoute } from './route'
import { negotiateCached, guessFormat } from './negotiate'

/** Everything decided about a call before its body is read. */
export interface CallPlan {
  readonly format: BodyFormat
  readonly mode: ApiMode
  readonly sequence: SequenceName
  readonly backend: Backend
  /** The microservice's name as routed. */
  readonly microservice: string
  readonly method: MethodInfo
  /** The Content-Length, or -1 when the body's length is not declared. */
  readonly declaredLength: number
}

/** A call refused before its body is read, with the format its problem body is written in. */
export interface Refusal {
  readonly refusal: Failure
  readonly format: BodyFormat
  /** An unknown microservice announced to arrive (Backends.arrival): the call may wait for it. */
  readonly arrival?: Promise<boolean>
  /**
   * The deployed microservice (and method) the refusal concerns, once known: metrics and the access
   * log count it under them, so an outage shows on the microservice's own series.
   */
  readonly microservice?: string
  readonly method?: MethodInfo
}

export type PlanSettings = Pick<GatewayConfig, 'defaultApiId' | 'defaultSequenceName' | 'maxBodyBytes' | 'trust'>

/** The detail of CLIENT_CERTIFICATE_REQUIRED, on calls and on the edge's pages. */
export const CERTIFICATE_REQUIRED =
  'connect with a client certificate signed by a CA this listener trusts (tls.clientCertificates)'

/**
 * The checks that need no body, in a fixed order: method, route, media types,
 * mode, sequence, then the catalog (404/400 without a round trip) and the declared size. A pure
 * function of the head, the settings and what the backends know now.
 */
export function planCall(head: CallHead, settings: PlanSettings, backends: Backends): CallPlan | Refusal {
  let format: BodyFormat = 'json'
  if (head.certificateMissing)
    return refuse(format, {
      code: 'CLIENT_CERTIFICATE_REQUIRED',
      detail: CERTIFICATE_REQUIRED
    })
  if (head.conflictingLength)
    return refuse(format, {
      code: 'MALFORMED_REQUEST',
      detail: 'the request has Content-Length headers with different values; send one (RFC 9112 section 6.3)'
    })
  if (head.method !== 'post') {
    const m = head.method.toUpperCase()
    return refuse(format, {
      code: 'METHOD_NOT_ALLOWED',
      detail: `${m} is not allowed; use POST (or OPTIONS for CORS preflight)`
    })
  }
  const route = parseRoute(head.url)
  if (route === null)
    return refuse(format, {
      code: 'ROUTE_NOT_FOUND',
      detail: `'${bounded(head.url)}' is not /{microservice}/{service}/{method}`
    })
  const negotiation = negotiateCached(head.contentType, head.accept)
  if ('code' in negotiation) {
    format = guessFormat(head.contentType, head.accept)
    return refuse(format, negotiation)
  }
  format = negotiation.format

  if (!head.identityTrusted && settings.trust.untrustedIdentity === 'refuse') {
    return refuse(format, {
      code: 'UNTRUSTED_IDENTITY',
      detail:
        'X-PLATFORM-IP, -User, -Session-ID, -Client-Application-Name, -Privilege-Names and -Certificate-Subject are accepted only from trusted peers (the edge, configured proxies)'
    })
  }
  const apiId = head.apiId === '' ? settings.defaultApiId : head.apiId
  if (!isApiMode(apiId)) {
    return refuse(format, {
      code: 'UNKNOWN_API_ID',
      detail: `X-PLATFORM-API-ID '${bounded(apiId)}' is neither ROA nor RMC (case sensitive)`
    })
  }
  const sequence = head.sequenceName === '' ? settings.defaultSequenceName : head.sequenceName
  if (!isSequenceName(sequence)) {
    const known = Object.keys(SEQUENCES).join(', ')
    return refuse(format, {
      code: 'UNKNOWN_SEQUENCE',
      detail: `X-PLATFORM-Sequence-Name '${bounded(sequence)}' is not one of ${known}`
    })
  }
  const seqFormat = SEQUENCES[sequence].format
  if (seqFormat !== format) {
    const detail = `the body is ${format.toUpperCase()} but ${sequence} reads ${seqFormat.toUpperCase()}`
    return refuse(format, { code: 'SEQUENCE_FORMAT_MISMATCH', detail })
  }

  const [microservice, svcName, methodName] = route
  const backend = backends.get(microservice)
  if (backend === undefined) {
    const refusal: Failure = {
      code: 'UNKNOWN_MICROSERVICE',
      detail: `no microservice named '${bounded(microservice)}' is deployed`
    }
    const arrival = backends.arrival?.(microservice)
    return arrival === undefined ? refuse(format, refusal) : { refusal, format, arrival }
  }
  const catalog = backend.catalog
  if (catalog !== null && catalog.servlet) {
    return refusedFor(format, microservice, {
      code: 'SERVLET_MICROSERVICE',
      detail: `microservice '${microservice}' is a servletApp: it handles its own HTTP requests, and the gateway exposes only nativeApp microservices`
    })
  }
  const unavailable = backend.unavailableReason()
  if (unavailable !== null || catalog === null) {
    const detail = unavailable ?? `microservice '${microservice}' has not completed its handshake`
    // Deployed here a moment ago and announced: it is starting, and its calls wait as before.
    const arrival = backends.arrival?.(microservice)
    const refusal: Failure = { code: 'MICROSERVICE_UNAVAILABLE', detail }
    return arrival === undefined
      ? refusedFor(format, microservice, refusal)
      : { refusal, format, arrival, microservice }
  }
  const methods = catalog.service(svcName)
  if (methods === undefined) {
    return refusedFor(format, microservice, {
      code: 'UNKNOWN_SERVICE',
      detail: `microservice '${microservice}' has no remotely enabled service '${bounded(svcName)}'`
    })
  }
  const method = methods.get(methodName)
  if (method === undefined)
    return refusedFor(format, microservice, {
      code: 'UNKNOWN_METHOD',
      detail: `service '${svcName}' has no method '${bounded(methodName)}'`
    })
  if (apiId === 'ROA') {
    const broken = roaRule(svcName, methodName, method.parameterCount)
    if (broken !== null) return refusedFor(format, microservice, broken, method)
  }

  const declaredLength = declaredLengthOf(head)
  const tooLarge = bodyTooLarge(declaredLength, settings.maxBodyBytes)
  if (tooLarge !== null) return refusedFor(format, microservice, tooLarge, method)
  return { format, mode: apiId, sequence, backend, microservice, method, declaredLength }
}

/** The Content-Length, or -1 when the body's length is not declared (uWS refuses a malformed one first). */
export function declaredLengthOf(head: CallHead): number {
  const n = head.contentLength === '' ? -1 : Number(head.contentLength)
  return Number.isNaN(n) ? -1 : n
}

/** A refusal before the microservice is known (no closure over `format`: planCall runs on every call). */
function refuse(format: BodyFormat, refusal: Failure): Refusal {
  return { refusal, format }
}

/** A refusal of a call to a deployed microservice: the observer counts it under that microservice (and method). */
function refusedFor(format: BodyFormat, microservice: string, refusal: Failure, method?: MethodInfo): Refusal {
  return method === undefined ? { refusal, format, microservice } : { refusal, format, microservice, method }
}

/** A declared length past the limit is refused before a byte of the body is read. */
export function bodyTooLarge(declaredLength: number, maxBodyBytes: number): Failure | null {
  if (declaredLength <= maxBodyBytes) return null
  return { code: 'BODY_TOO_LARGE', detail: `the body has ${declaredLength} bytes; the limit is ${maxBodyBytes}` }
}

export function isRefusal(p: CallPlan | Refusal): p is Refusal {
  return 'refusal' in p
}
