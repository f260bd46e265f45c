import { createHash, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { JWTPayload } from 'jose' with { 'resolution-mode': 'import' }
import type { EdgeAuthConfig, EdgeIdentity } from '../../common/config/config'
import { InternalError, errorMessage } from '../../common/errors/internal'
import type { Authentication, AuthOutcome, Credentials, Principal } from '../invoke/interfaces'
import { certificateMatcher, type CertificateMatcher } from '../tls/peer-certificates'

type Verifier = (token: string) => Promise<JWTPayload>

/** An edge without EDGE.auth: anonymous calls only. */
export const NO_CREDENTIALS: EdgeAuthConfig = { apiKeys: [], certificates: [], jwt: null, required: false }

/**
 * The edge's Authentication: API keys (stored as SHA-256 hashes, never in clear) and JWT bearer
 * tokens (verified with `jose` against a key file or a JWKS file; issuer, audience, algorithms and
 * expiry checked). A request without a credential is anonymous (`null`) unless one is required; with
 * a bad one, refused.
 */
export class Authenticator implements Authentication {
  readonly challenge = 'Bearer, ApiKey header="X-API-Key"'
  private readonly keys: Array<{ hash: Buffer; principal: Principal }>
  private readonly certificates: Array<{ matches: CertificateMatcher; principal: Principal }>
  private readonly verifier: Promise<Verifier> | null = null
  /** Whether any credential can be accepted here; an edge configured with none refuses them all. */
  private readonly takesCredentials: boolean

  constructor(private readonly config: EdgeAuthConfig = NO_CREDENTIALS) {
    this.takesCredentials = config.apiKeys.length > 0 || config.jwt !== null || config.required
    this.certificates = config.certificates.map((c) => ({
      matches: certificateMatcher([c.match]),
      principal: principalOf(c)
    }))
    this.keys = config.apiKeys.map((k) => ({ hash: Buffer.from(k.sha256, 'hex'), principal: principalOf(k) }))
    if (config.jwt !== null) this.verifier = loadVerifier(config.jwt)
  }

  authenticate(c: Credentials): AuthOutcome | Promise<AuthOutcome> {
    if (c.apiKey === '' && c.authorization === '') {
      // A client certificate is the credential of a call that presents no other (an API key or a
      // token names who calls more narrowly than the connection's certificate).
      const peer = c.certificate
      if (peer !== null) for (const k of this.certificates) if (k.matches(peer)) return k.principal
      return this.config.required
        ? {
            refused: `a credential is required (X-API-Key, Authorization: Bearer${this.certificates.length > 0 ? ' or a client certificate named in EDGE.auth.certificates' : ''})`
          }
        : null
    }
    if (!this.takesCredentials) return { refused: 'this edge accepts no credentials' }
    if (c.apiKey !== '') return this.apiKey(c.apiKey) ?? { refused: 'the API key is not known' }
    const bearer = /^Bearer\s+(\S+)$/i.exec(c.authorization)?.[1]
    if (bearer === undefined) return { refused: 'the Authorization header is not a Bearer token' }
    return this.bearer(bearer)
  }

  /** The API key's principal, synchronously: null when the key is unknown. */
  private apiKey(key: string): Principal | null {
    const hash = createHash('sha256').update(key).digest()
    for (const k of this.keys) if (timingSafeEqual(k.hash, hash)) return k.principal
    return null
  }

  /** The bearer token's principal, or why it is refused. */
  private async bearer(token: string): Promise<AuthOutcome> {
    if (this.verifier === null) return { refused: 'bearer tokens are not accepted here' }
    const jwt = this.config.jwt!
    try {
      const payload = await (await this.verifier)(token)
      const user = payload[jwt.userClaim]
      if (typeof user !== 'string' || user === '') return { refused: `the token has no '${jwt.userClaim}' claim` }
      const raw = payload[jwt.privilegesClaim]
      const privilegeNames = Array.isArray(raw)
        ? raw.filter((x): x is string => typeof x === 'string')
        : typeof raw === 'string'
          ? raw.split(/[\s;]+/).filter((x) => x !== '')
          : []
      const app = payload.azp ?? payload.client_id
      return { user, privilegeNames, clientApplicationName: typeof app === 'string' ? app : '' }
    } catch (err) {
      return { refused: `the bearer token is not accepted: ${errorMessage(err)}` }
    }
  }
}

/** The principal an EDGE.auth entry stands for. */
function principalOf(e: EdgeIdentity): Principal {
  return { user: e.user, privilegeNames: [...e.privileges], clientApplicationName: e.clientApplicationName ?? '' }
}

async function loadVerifier(jwt: NonNullable<EdgeAuthConfig['jwt']>): Promise<Verifier> {
  const jose = await import('jose')
  const options = {
    algorithms: [...jwt.algorithms],
    ...(jwt.issuer !== null ? { issuer: jwt.issuer } : {}),
    ...(jwt.audience !== null ? { audience: jwt.audience } : {})
  }
  if (jwt.jwksFile !== null) {
    const jwks = JSON.parse(readFileSync(jwt.jwksFile, 'utf8')) as Parameters<typeof jose.createLocalJWKSet>[0]
    const getKey = jose.createLocalJWKSet(jwks)
    return async (token) => (await jose.jwtVerify(token, getKey, options)).payload
  }
  let key: Awaited<ReturnType<typeof jose.importSPKI>> | Uint8Array
  if (jwt.publicKeyFile !== null)
    key = await jose.importSPKI(readFileSync(jwt.publicKeyFile, 'utf8'), jwt.algorithms[0]!)
  else {
    const secret = process.env[jwt.secretEnv ?? ''] ?? ''
    if (secret === '')
      throw new InternalError(
        'IGW_SECRET_MISSING',
        `EDGE.auth.jwt: the environment variable ${jwt.secretEnv ?? '(none)'} holds no secret`
      )
    key = new TextEncoder().encode(secret)
  }
  return async (token) => (await jose.jwtVerify(token, key, options)).payload
}
