/** Names of the HTTP contract that both the gateway and the generated descriptions use. */

/**
 * The base path of a description (docs/contract.md), mapped by the edge to the gateway's
 * /{microservice}/{svc}/{method}.
 */
export const EDGE_API_PREFIX = '/_eapi/ELASTIC_HTTP'
/** docs/contract.md: where the edge serves a microservice's UI. */
export const SWAGGER_PREFIX = '/_swagger'

/** The request id a client may send, echoed on every answer (generated when absent). */
export const REQUEST_ID_HEADER = 'X-PLATFORM-Request-ID'

/**
 * The names of the headers the gateway and the edge write (src/gateway/http/respond.ts writes every
 * answer), or name to a browser (what a preflight allows), spelled once.
 */
export const HEADER = {
  contentType: 'Content-Type',
  accept: 'Accept',
  contentTypeOptions: 'X-Content-Type-Options',
  cacheControl: 'Cache-Control',
  vary: 'Vary',
  allow: 'Allow',
  retryAfter: 'Retry-After',
  rateLimitPolicy: 'RateLimit-Policy',
  rateLimit: 'RateLimit',
  allowOrigin: 'Access-Control-Allow-Origin',
  allowMethods: 'Access-Control-Allow-Methods',
  allowHeaders: 'Access-Control-Allow-Headers',
  maxAge: 'Access-Control-Max-Age',
  exposeHeaders: 'Access-Control-Expose-Headers',
  requestId: REQUEST_ID_HEADER
} as const

/** The nine X-PLATFORM-* request headers (docs/contract.md, Headers), spelled canonically, with their meaning. */
export const PLATFORM_HEADER_NOTES = [
  { name: 'X-PLATFORM-API-ID', description: 'Invocation mode: ROA (the default) or RMC (case sensitive)' },
  { name: 'X-PLATFORM-Privilege-Names', description: 'Privileged names separated by ";", for the permission resolver' },
  { name: 'X-PLATFORM-Locale', description: 'Locale for translation, e.g. en' },
  {
    name: 'X-PLATFORM-Sequence-Name',
    description:
      'Sequence that reads the body and writes the answer; XML bodies need an XML sequence (alphaParamArrayXmlInOutSequence)'
  },
  { name: REQUEST_ID_HEADER, description: 'Request identifier; generated when absent and echoed on the answer' },
  { name: 'X-PLATFORM-Session-ID', description: 'Session identifier' },
  { name: 'X-PLATFORM-User', description: 'User' },
  { name: 'X-PLATFORM-Client-Application-Name', description: 'Name of the calling application' },
  { name: 'X-PLATFORM-IP', description: "Client's IP address; the peer's address when absent" }
] as const

export const PLATFORM_HEADERS = PLATFORM_HEADER_NOTES.map((h) => h.name)

/**
 * The headers that claim who is calling and what they may do: honoured only from a trusted peer (the
 * edge, a configured proxy), never as an outside client sends them.
 */
export const IDENTITY_HEADERS = [
  'X-PLATFORM-IP',
  'X-PLATFORM-User',
  'X-PLATFORM-Session-ID',
  'X-PLATFORM-Client-Application-Name',
  'X-PLATFORM-Privilege-Names',
  // The subject of a client certificate a TLS terminator in front (the generated nginx) verified.
  'X-PLATFORM-Certificate-Subject'
] as const
