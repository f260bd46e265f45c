/**
 * Every error the gateway answers with: a stable code, its HTTP status and a title.
 * docs/errors.md lists them with what to do (a test keeps the two equal). ROUTE_NOT_FOUND: a path that
 * is not /{microservice}/{service}/{method} names no method at all (README, "HTTP contract");
 * SERVLET_MICROSERVICE: the gateway is not exposed for servlet microservices (docs/contract.md, Calls).
 * HEADERS_TOO_LARGE, NODE_FAILED and NODE_TIMEOUT are the nginx edge's own answers
 * (`microservice edge nginx-config`), in front of the gateways.
 */
export const codes = {
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Neither Content-Type nor Accept names JSON or XML' },
  FORMAT_MISMATCH: { status: 406, title: 'Content-Type and Accept name different formats' },
  UNKNOWN_API_ID: { status: 400, title: 'Unknown X-PLATFORM-API-ID' },
  UNKNOWN_SEQUENCE: { status: 400, title: 'Unknown X-PLATFORM-Sequence-Name' },
  SEQUENCE_FORMAT_MISMATCH: { status: 415, title: 'The body format differs from the format of the sequence' },
  MALFORMED_BODY: { status: 400, title: 'The body is not well-formed' },
  MALFORMED_REQUEST: { status: 400, title: 'The request is not valid HTTP/1.1' },
  ROA_NEEDS_ONE_PARAMETER: { status: 400, title: 'ROA can call only methods with exactly one parameter' },
  ARGUMENT_COUNT: { status: 400, title: 'The number of arguments differs from the number of parameters' },
  BAD_ARGUMENT: { status: 400, title: 'An argument does not match its parameter type' },
  ROUTE_NOT_FOUND: { status: 404, title: 'The path is not /{microservice}/{service}/{method}' },
  UNKNOWN_MICROSERVICE: { status: 404, title: 'Unknown microservice' },
  UNKNOWN_SERVICE: { status: 404, title: 'Unknown or not remotely enabled service' },
  UNKNOWN_METHOD: { status: 404, title: 'Unknown method' },
  SERVLET_MICROSERVICE: { status: 404, title: 'A servletApp microservice handles its own HTTP requests' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Only POST and OPTIONS are allowed' },
  BODY_TOO_LARGE: { status: 413, title: 'The body is larger than the configured limit' },
  BODY_TIMEOUT: { status: 408, title: 'The body did not arrive in time' },
  HEADERS_TOO_LARGE: { status: 431, title: 'The request line or a header is longer than the limit' },
  PRIVILEGE_DENIED: { status: 403, title: 'The method needs a privileged call' },
  UNTRUSTED_IDENTITY: { status: 403, title: 'Identity or privilege headers from a peer not trusted to send them' },
  CLIENT_CERTIFICATE_REQUIRED: { status: 403, title: 'This listener requires a client certificate' },
  UNAUTHENTICATED: { status: 401, title: 'The credential is missing, invalid or expired' },
  RATE_LIMITED: { status: 429, title: 'A rate limit or quota of the caller is used up' },
  MICROSERVICE_UNAVAILABLE: { status: 503, title: 'The microservice is unavailable' },
  OVERLOADED: { status: 503, title: 'The gateway is saturated' },
  BACKEND_CONNECTION_LOST: { status: 502, title: 'The connection to the microservice was lost during the call' },
  EXECUTION_TIMEOUT: { status: 504, title: 'The executing timeout passed' },
  NODE_FAILED: { status: 502, title: 'No platform node answered the call' },
  NODE_TIMEOUT: { status: 504, title: 'The platform node did not answer in time' },
  METHOD_FAILED: { status: 500, title: 'The method threw' },
  INTERNAL: { status: 500, title: 'Internal error' }
} as const satisfies Record<string, { status: number; title: string }>

export type ErrorCode = keyof typeof codes

export function isErrorCode(s: string): s is ErrorCode {
  return Object.prototype.hasOwnProperty.call(codes, s)
}

/** Data-only error: survives the trip between threads and processes unchanged. */
export interface Failure {
  code: ErrorCode
  detail: string
  /** Overrides the code's status (a service error that carries its own 4xx). */
  status?: number
}

/** Thrown inside the gateway and the runtime; converted to a Failure at each boundary. */
export class GatewayError extends Error {
  constructor(
    readonly code: ErrorCode,
    detail: string,
    readonly status: number = codes[code].status
  ) {
    super(detail)
    this.name = 'GatewayError'
  }

  toFailure(): Failure {
    return this.status === codes[this.code].status
      ? { code: this.code, detail: this.message }
      : { code: this.code, detail: this.message, status: this.status }
  }
}
