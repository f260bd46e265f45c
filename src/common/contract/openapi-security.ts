/** What the edge accepts as credentials (its `EDGE.auth`), as far as a description declares it. */
export interface EdgeCredentials {
  readonly required: boolean
  readonly apiKeys: readonly unknown[]
  readonly jwt: unknown
}

/** An OpenAPI security requirement: scheme names to scopes (none here). */
export type SecurityRequirement = { [scheme: string]: string[] }

export interface SecurityDeclaration {
  /** The document's root `security`. */
  readonly security: readonly SecurityRequirement[]
  /** `components.securitySchemes`; empty when no scheme is declared. */
  readonly securitySchemes: { readonly [name: string]: { readonly [k: string]: string } }
}

/**
 * No credential accepted, none needed: an empty root `security` (OpenAPI's "no security") rather
 * than none at all, so a reader and a linter know it was decided, not forgotten.
 */
export const NO_SECURITY: SecurityDeclaration = { security: [], securitySchemes: {} }

const SCHEMES = {
  ApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: "An API key from the platform's EDGE.auth.apiKeys: it sets the user and privilege names."
  },
  Bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'A JWT the edge verifies (EDGE.auth.jwt): its claims set the user and privilege names.'
  }
} as const

/**
 * The security the edge enforces on /_eapi with this configuration: the schemes it accepts, each a
 * requirement of its own (one credential is enough), and the empty requirement too while a call
 * without a credential is let through (anonymous). With `required` and no scheme configured every
 * call is refused; both schemes are declared then, as the edge's 401 challenge names both.
 */
export function edgeSecurity(auth: EdgeCredentials): SecurityDeclaration {
  const names: Array<keyof typeof SCHEMES> = []
  if (auth.apiKeys.length > 0) names.push('ApiKey')
  if (auth.jwt !== null && auth.jwt !== undefined) names.push('Bearer')
  if (names.length === 0 && !auth.required) return NO_SECURITY
  if (names.length === 0) names.push('ApiKey', 'Bearer')
  const security: SecurityRequirement[] = names.map((n) => ({ [n]: [] }))
  if (!auth.required) security.push({})
  return { security, securitySchemes: Object.fromEntries(names.map((n) => [n, SCHEMES[n]])) }
}

/**
 * A description's JSON text with the edge's security declared in it (root `security` and
 * `components.securitySchemes` replaced); a text that is not a JSON object is returned as it is.
 */
export function declareEdgeSecurity(text: string, auth: EdgeCredentials): string {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (err) {
    if (err instanceof SyntaxError) return text
    throw err
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return text
  const d = doc as { security?: unknown; components?: { securitySchemes?: unknown } }
  const declared = edgeSecurity(auth)
  d.security = declared.security
  const components = d.components !== null && typeof d.components === 'object' ? d.components : {}
  if (Object.keys(declared.securitySchemes).length > 0) components.securitySchemes = declared.securitySchemes
  else delete components.securitySchemes
  d.components = components
  return `${JSON.stringify(d, null, 2)}\n`
}
