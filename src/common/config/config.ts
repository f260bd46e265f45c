import { LOG_LEVELS, type LogLevel } from '../observability/log'
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv'
import { readFileSync } from 'node:fs'
import { basename, resolve, join, dirname } from 'node:path'
import { usableCores } from '../process/cores'
import { MAX_POOL_THREADS } from '../contract/limits'
import { peerMatcher } from './peers'
import type { Json } from '../json/value'
import { applyEnv, knownKeys, listed, mergeOver } from './overrides'
import { InternalError, errorMessage } from '../errors/internal'
import { isSequenceName, isApiMode, type SequenceName, type ApiMode } from '../contract/vocabulary'

/** WORKER_POOL: the Piscina pool that splits large bodies. */
export interface PoolOptions {
  /** Upper bound of worker threads (docs/contract.md, decisions: 128). */
  maxThreads: number
  /** Threads kept alive when idle. */
  minThreads: number
  idleTimeoutMs: number
  /** Tasks allowed to wait for a thread before callers get OVERLOADED. */
  maxQueue: number
  /** Executing timeout of one task (docs/contract.md, decisions: 240 s). The worker running it is terminated. */
  taskTimeoutMs: number
  /** Bodies up to this size are split on the main thread; 0 sends every body to the pool. */
  inlineMaxBytes: number
}

/** DISPATCH: the gateway's connections to microservices. */
export interface DispatchOptions {
  /** Persistent connections kept to each microservice. */
  connectionsPerMicroservice: number
  connectTimeoutMs: number
  /** Availability check period. */
  pingIntervalMs: number
  /** A check slower than this (or unanswered) makes the microservice unavailable (docs/contract.md, Limits). */
  availabilityTimeoutMs: number
  /**
   * Outlier ejection: an instance with calls in flight that answers nothing, not even a ping, for
   * this long gets no new calls (its calls in flight are answered 504) until it answers again.
   */
  ejectAfterMs: number
  reconnectMinMs: number
  reconnectMaxMs: number
  maxFrameBytes: number
  /**
   * Which connected instances of a microservice take calls when they run different versions (a
   * rollout, or remote instances left behind): all of them, or only those of the newest version.
   */
  servingVersions: 'all' | 'newest'
}

/** A certificate and its key (PEM files), the key perhaps encrypted with a passphrase. */
export interface TlsFiles {
  certFile: string
  keyFile: string
  /** The environment variable holding the key's passphrase; null: the key is not encrypted. */
  passphraseEnv: string | null
}

/** A listener's `tls` block: HTTPS instead of plain HTTP (docs/security.md, "TLS"). */
export interface TlsConfig extends TlsFiles {
  /** Where it is in the config (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.tls), for the errors that name it. */
  at: string
  minVersion: 'TLSv1.2' | 'TLSv1.3'
  /** An OpenSSL cipher list for TLS 1.2 (TLS 1.3's suites are the library's); null: the library's. */
  ciphers: string | null
  /** Certificates chosen by the name a client asks for (SNI); any other name gets the one above. */
  serverNames: Record<string, TlsFiles>
  /** How often the files are looked at for a renewal. */
  reloadIntervalMs: number
  /** Client certificates (`clientCertificates`); null: none asked for (mode "off"). */
  clientCertificates: ClientCertificates | null
}

/**
 * A listener's `tls.clientCertificates` (docs/security.md, "Client certificates"): the CAs a client's
 * certificate must chain to, whether one is asked for or required, and the names that make a peer
 * trusted to send identity headers, as a trusted address is.
 */
export interface ClientCertificates {
  at: string
  /** request: verified when sent; require: a call without one is refused (403 CLIENT_CERTIFICATE_REQUIRED). */
  mode: 'request' | 'require'
  caFile: string
  /**
   * `CN=edge`, `O=Acme,CN=edge` (subject attributes, each present) or `DNS:…`, `URI:…`,
   * `IP Address:…`, `email:…` (one subject alternative name).
   */
  trusted: string[]
}

/** ENTRY_POINTS → WEB_SERVICE_FACADE_HTTP. */
export interface GatewayConfig {
  host: string
  port: number
  /** HTTPS on this port; null: plain HTTP. */
  tls: TlsConfig | null
  /** Plain HTTP on a non-loopback address while another listener has TLS (docs/security.md, "No plaintext door"). */
  allowPlaintext: boolean
  /**
   * Listener threads: each runs the request pipeline with its own uWS App on the same port (the
   * kernel spreads connections by SO_REUSEPORT) and its own connections to the instances; 1 serves
   * on the main thread alone. "auto" in the file: the cores this process may use (docs/operating.md).
   */
  threads: number
  /**
   * After a call goes out or an answer comes in, how long each thread's event loop keeps polling
   * rather than sleeping; 0 (the default): it sleeps. One call alone is answered sooner, at the price
   * of a busy core while calls come one at a time (docs/operating.md, "Busy polling").
   */
  busyPollMicroseconds: number
  defaultSequenceName: SequenceName
  defaultApiId: ApiMode
  maxBodyBytes: number
  /** Largest request head (request line and headers) read; 431 past it (uWS 20.5x; the 20.30 build has no limit). */
  maxHeaderBytes: number
  /** Longest a call may take end to end before 504 and a Cancel to the microservice. */
  executingTimeoutMs: number
  /**
   * A body that stalls (less than uWS's throughput floor arrives in this time) is answered 408 and
   * its connection closed, before uWS's own idle timeout would close it without an answer
   * (docs/security.md, "Slow bodies").
   */
  bodyTimeoutMs: number
  /** Requests being processed at once before OVERLOADED. */
  maxInFlight: number
  /** Body bytes held by requests in progress, all together, before OVERLOADED (a bound on memory). */
  maxBodyBytesInFlight: number
  /** Deepest nesting the splitter accepts in a body. */
  maxDepth: number
  retryAfterSeconds: number
  cors: {
    allowedOrigins: string[]
    maxAgeSeconds: number
    /** Whether a preflight lets pages of allowed origins send the identity and privilege headers. */
    allowIdentityHeaders: boolean
  }
  /** Who may claim identity and privileges (IDENTITY_HEADERS), and what happens to anyone else's claims. */
  trust: {
    /** Addresses and CIDRs (127.0.0.1, 10.0.0.0/8, ::1/128) trusted to send the identity headers. */
    trustedPeers: string[]
    /** drop: the claims are ignored (the socket address is X-PLATFORM-IP); refuse: 403 UNTRUSTED_IDENTITY. */
    untrustedIdentity: 'drop' | 'refuse'
  }
  /** W3C Trace Context: make a traceparent for a request that has none (a valid one always travels). */
  tracing: { generateTraceparent: boolean }
}

/** PLATFORM: where uploads land and deployments live, the control socket, what is deployed at first start. */
export interface PlatformSection {
  uploadDirectory: string
  deploymentDirectory: string
  controlSocket: string
  /**
   * Where local instances' unix sockets go (a directory of their own per run, made inside it): beside
   * the control socket unless set, so a moved home takes them along.
   */
  socketDirectory: string
  /** Microservice directories packed and uploaded at start when not deployed yet. */
  bootstrap: string[]
  drainTimeoutMs: number
  /** After SIGTERM, how long the platform serves on (not ready) before it stops accepting connections. */
  drainGraceMs: number
  /** Quiet time (no call in progress, no request) that ends the drain: longer than a balancer's idle keep-alive. */
  drainIdleMs: number
  startTimeoutMs: number
  unpack: { maxEntries: number; maxEntryBytes: number; maxTotalBytes: number }
  /** Instances per microservice, overriding the package's own setting (scaling without repacking). */
  instances: Record<string, number>
  /** How local instances are reached: unix (a socket file only this user may open) or tcp (loopback). */
  localTransport: 'unix' | 'tcp'
}

/** Who a credential of EDGE.auth (an API key, a client certificate) stands for. */
export interface EdgeIdentity {
  user: string
  privileges: string[]
  clientApplicationName?: string
}

/** EDGE.auth: credentials the edge turns into X-PLATFORM-User and -Privilege-Names. */
export interface EdgeAuthConfig {
  /** Refuse (401) a call to /_eapi that presents no credential. */
  required: boolean
  /** API keys, sent as X-API-Key: the SHA-256 of the key (hex), never the key itself. */
  apiKeys: Array<EdgeIdentity & { sha256: string }>
  /**
   * Client certificates (EDGE.tls.clientCertificates verifies them): a certificate with the name
   * `match` (as tls.clientCertificates.trusted writes names) is this identity.
   */
  certificates: Array<EdgeIdentity & { match: string }>
  /** JWT bearer tokens (Authorization: Bearer …); one of jwksFile, publicKeyFile, secretEnv. */
  jwt: {
    jwksFile: string | null
    publicKeyFile: string | null
    /** The environment variable holding an HMAC secret (HS256). */
    secretEnv: string | null
    issuer: string | null
    audience: string | null
    algorithms: string[]
    userClaim: string
    privilegesClaim: string
  } | null
}

/** EDGE: the edge on :8000 (Swagger UI, descriptions, the /_eapi mapping) for this platform. */
export interface EdgeSection {
  enabled: boolean
  host: string
  port: number
  /** Listener threads serving the edge's port, as ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.threads for the gateway's. */
  threads: number
  /**
   * Its own `tls` block, or, when it has none, the gateway's: the edge answers the gateway's calls
   * under /_eapi, so it never speaks plain HTTP beside a gateway that speaks TLS, unless `allowPlaintext`.
   */
  tls: TlsConfig | null
  /** Plain HTTP on a non-loopback address while another listener has TLS (docs/security.md, "No plaintext door"). */
  allowPlaintext: boolean
  /** Microservices whose UI and description the edge serves (the "addons" of docs/contract.md); ["*"] for all. */
  swagger: string[]
  auth: EdgeAuthConfig
}

/** ADMIN: health, readiness, status and Prometheus metrics for operators (loopback by default). */
export interface AdminSection {
  enabled: boolean
  host: string
  port: number
  tls: TlsConfig | null
  /** Plain HTTP on a non-loopback address while another listener has TLS (docs/security.md, "No plaintext door"). */
  allowPlaintext: boolean
  /** GET /metrics in Prometheus text format, and the counting behind it. */
  metrics: boolean
  /** Microservices without which the platform is not ready: /readyz is 503 while one is unavailable. */
  readyRequires: string[]
  /**
   * The environment variable holding the bearer token that allows POST /deploy and
   * POST /microservices/{name}/rollback on this listener (`microservice upload --node`); null: none.
   */
  deployTokenEnv: string | null
}

/** LOGGING: JSON lines (pino) on stdout; the access log is one line per request. */
export interface LoggingSection {
  level: LogLevel
  accessLog: boolean
  /**
   * The share of answered calls faster than accessLogSlowMs that get a line (1: all; 0: only refused,
   * failed and slow calls). docs/operating.md, "The access log's cost".
   */
  accessLogSample: number
  /** A call that took this long or longer always gets a line. */
  accessLogSlowMs: number
  /** Each instance's stdout and stderr go to <var>/logs/<instance>.log, rotated at this size. */
  instanceLogMaxBytes: number
  /** Rotated files kept per instance (<instance>.log.1 ... .N). */
  instanceLogFiles: number
}

/** An instance on another host: the gateway connects to it; the platform does not run it. */
export interface RemoteInstance {
  name: string
  host: string
  port: number
  /**
   * The environment variable holding the shared secret the handshake proves both ways; the instance
   * gets the same secret as MICROSERVICE_SECRET. Null: an unauthenticated connection (not advised).
   */
  secretEnv: string | null
  /** The internal protocol over TLS to it; null: plain TCP. */
  tls: TlsClientFiles | null
}

/** MICROSERVICES.remote[].tls, .discovery[].tls: the instance's CAs, and the gateway's own pair for mutual TLS. */
export interface TlsClientFiles {
  /** Where it is in the config (MICROSERVICES.remote[0].tls), for the errors that name it. */
  at: string
  caFile: string
  certFile: string | null
  keyFile: string | null
  passphraseEnv: string | null
  serverName: string | null
}

/**
 * A microservice whose instances are found in DNS (a Kubernetes headless Service): the A/AAAA records
 * of `dns` at `port`, or, with `srv`, the SRV records of `dns` (each target's addresses at its port).
 */
export interface DiscoveredMicroservice {
  name: string
  dns: string
  port: number | null
  srv: boolean
  secretEnv: string | null
  tls: TlsClientFiles | null
  /** How often the name is resolved again (faster while an instance is disconnected). */
  intervalMs: number
}

/** A rule of RATE_LIMITS: the calls it matches, what it counts them by, and its limit. */
export interface RateRule {
  /** Named in the RateLimit fields, the metrics and the 429's detail. */
  name: string
  /** null: any. */
  match: { microservice: string | null; service: string | null; method: string | null; apiId: ApiMode | null }
  /**
   * identity: the authenticated user (an API key's, a token's subject, a trusted peer's
   * X-PLATFORM-User), else the client certificate's subject, else the address; address: the client's
   * address (a trusted peer's X-PLATFORM-IP); global: one count for every caller.
   */
  key: 'identity' | 'address' | 'global'
  /** node: counted by this gateway; cluster: in RATE_LIMITS.redis, for every gateway that names it. */
  scope: 'node' | 'cluster'
  /** A token bucket (`rate` a second, up to `burst` at once) or a quota (`count` a window). */
  limit: { kind: 'bucket'; rate: number; burst: number } | { kind: 'window'; count: number; windowSeconds: number }
}

/** RATE_LIMITS: who may call how often (docs/rate-limits.md). */
export interface RateLimitsSection {
  rules: RateRule[]
  /** Keys each rule counts at once; past it, a rule forgets the least used of the keys it probes. */
  maxKeys: number
  /** RateLimit-Policy and RateLimit on every call a rule matches, not only on 429s. */
  headers: boolean
  /** Where "cluster" rules are counted; null: no such rule. */
  redis: {
    url: string
    /** Keys are this, the rule's name and a hash of the key. */
    prefix: string
    /** The longest a call waits for Redis. */
    timeoutMs: number
    /** After a failure, how long Redis is not asked. */
    retryMs: number
    /** While Redis cannot be asked: count locally (each gateway its own limit), or refuse (503 OVERLOADED). */
    onFailure: 'local' | 'refuse'
  } | null
}

/** ADMISSION: adaptive concurrency per method of each microservice (docs/rate-limits.md, "Adaptive admission"). */
export interface AdmissionSection {
  adaptive: boolean
  initialLimit: number
  minLimit: number
  maxLimit: number
  /** Calls queue when most round trips of a window pass tolerance × the unloaded latency + slackMs. */
  tolerance: number
  slackMs: number
  /** How often the limit is reconsidered. */
  windowMs: number
  /** The unloaded latency is the least round trip of the last two periods of this length. */
  baselineMs: number
  /** A round trip on a connection younger than this may grow the limit, never cut it: a new instance warming up. */
  warmupMs: number
  /** The share of the limit only priority calls may use. */
  priorityShare: number
  /** Calls shed last: from these users, or carrying one of these privilege names (trusted or authenticated). */
  priority: { users: string[]; privilegeNames: string[] }
}

export interface PlatformConfig {
  gateway: GatewayConfig
  rateLimits: RateLimitsSection
  admission: AdmissionSection
  pool: PoolOptions
  dispatch: DispatchOptions
  platform: PlatformSection
  edge: EdgeSection
  admin: AdminSection
  logging: LoggingSection
  /** directories: started as they are (development); remote: instances on other hosts. */
  microservices: {
    directories: string[]
    remote: RemoteInstance[]
    discovery: DiscoveredMicroservice[]
    /** DNS servers for discovery (`host[:port]`); empty: the system's resolver. */
    dnsServers: string[]
    restartMinMs: number
    restartMaxMs: number
  }
}

/**
 * The project's root: above dist/ when compiled (dist/src/common/config), or three levels up when the
 * sources run as they are (the mutation runs load them through tsx: docs/development.md).
 */
const ABOVE_SRC = resolve(__dirname, '..', '..', '..')
export const ROOT = basename(ABOVE_SRC) === 'dist' ? dirname(ABOVE_SRC) : ABOVE_SRC
export const DEFAULT_CONFIG_FILE = join(ROOT, 'config', 'platform.json')

/** The config, its file or an override, is not valid: the message names the key and the problem. */
export class ConfigError extends InternalError {
  constructor(message: string, options?: ErrorOptions) {
    super('IGW_CONFIG', message, options)
  }
}

function section(o: Json | undefined, path: string): { [k: string]: Json } {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new ConfigError(`${path}: must be an object`)
  return o
}

// The readers below run after checkSchema, which has checked every value's type and range against
// config/platform.schema.json: they only give the values their types, so each rule is stated once.
type Section = { [k: string]: Json }
const int = (o: Section, key: string): number => o[key] as number
const str = (o: Section, key: string): string => o[key] as string
const strings = (o: Section, key: string): string[] => o[key] as string[]
const bool = (o: Section, key: string): boolean => o[key] as boolean
const optionalString = (o: Section, key: string): string | null => (o[key] ?? null) as string | null
const sub = (o: Section, key: string): Section => o[key] as Section

/** The identity fields of an EDGE.auth entry (apiKeys[], certificates[]). */
function edgeIdentity(o: Section): EdgeIdentity {
  const app = optionalString(o, 'clientApplicationName')
  return {
    user: str(o, 'user'),
    privileges: strings(o, 'privileges'),
    ...(app !== null ? { clientApplicationName: app } : {})
  }
}

function parseEdgeAuth(a: Section): EdgeAuthConfig {
  const apiKeys = ((a.apiKeys ?? []) as Section[]).map((o) => ({ sha256: str(o, 'sha256'), ...edgeIdentity(o) }))
  let jwt: EdgeAuthConfig['jwt'] = null
  if (a.jwt !== undefined && a.jwt !== null) {
    const j = sub(a, 'jwt')
    jwt = {
      jwksFile: optionalString(j, 'jwksFile'),
      publicKeyFile: optionalString(j, 'publicKeyFile'),
      secretEnv: optionalString(j, 'secretEnv'),
      issuer: optionalString(j, 'issuer'),
      audience: optionalString(j, 'audience'),
      algorithms: j.algorithms === undefined ? ['RS256', 'ES256'] : strings(j, 'algorithms'),
      userClaim: optionalString(j, 'userClaim') ?? 'sub',
      privilegesClaim: optionalString(j, 'privilegesClaim') ?? 'privileges'
    }
    if ([jwt.jwksFile, jwt.publicKeyFile, jwt.secretEnv].filter((x) => x !== null).length !== 1)
      throw new ConfigError('EDGE.auth.jwt: name exactly one of jwksFile, publicKeyFile, secretEnv')
  }
  const certificates = ((a.certificates ?? []) as Section[]).map((o) => ({
    match: str(o, 'match'),
    ...edgeIdentity(o)
  }))
  return { required: a.required === undefined ? false : bool(a, 'required'), apiKeys, certificates, jwt }
}

/** Reads the config file, applies environment overrides, validates everything once, and freezes it. */
export function loadConfig(
  file = process.env.PLATFORM_CONFIG ?? DEFAULT_CONFIG_FILE,
  env: NodeJS.ProcessEnv = process.env
): PlatformConfig {
  let raw: { [k: string]: Json }
  try {
    const own = readJsonObject(file)
    // A file sets only what it changes: the shipped file supplies every other key.
    const defaults = file === DEFAULT_CONFIG_FILE ? own : readJsonObject(DEFAULT_CONFIG_FILE)
    raw = file === DEFAULT_CONFIG_FILE ? own : mergeOver(defaults, own)
  } catch (err) {
    throw new ConfigError(`config ${file}: ${errorMessage(err)}`, { cause: err })
  }
  try {
    const problems = applyEnv(raw, env)
    if (problems.length > 0) throw new ConfigError(listed(problems))
    return parseConfig(raw)
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`config ${file}: ${err.message}`, { cause: err })
    throw err
  }
}

function readJsonObject(file: string): { [k: string]: Json } {
  return section(JSON.parse(readFileSync(file, 'utf8')) as Json, file)
}

const SCHEMA_FILE = join(ROOT, 'config', 'platform.schema.json')
let validator: ValidateFunction | null = null

/**
 * The whole (merged) config against config/platform.schema.json, with ajv: every key known (a typo is
 * an error naming its path), every value of the right type and range.
 */
function checkSchema(raw: { [k: string]: Json }): void {
  validator ??= new Ajv({ allErrors: true, verbose: true }).compile(
    JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object
  )
  if (validator(raw)) return
  const errors = validator.errors ?? []
  // The most specific complaint: an unknown key or a bound before a type, deepest path first.
  const rank = (e: ErrorObject): number =>
    (e.keyword === 'additionalProperties'
      ? 0
      : ['minimum', 'maximum', 'enum', 'pattern', 'minLength'].includes(e.keyword)
        ? 1
        : 2) *
      1000 -
    e.instancePath.split('/').length
  // One complaint per place (ajv may give a type and a bound for the same value), all places at once.
  const best = new Map<string, ErrorObject>()
  for (const e of [...errors].sort((a, b) => rank(a) - rank(b))) {
    const key = e.keyword === 'additionalProperties' ? e.params.additionalProperty : e.params.missingProperty
    const place = `${e.instancePath}/${key === undefined ? '' : String(key)}`
    if (!best.has(place)) best.set(place, e)
  }
  throw new ConfigError(listed([...best.values()].map(describeSchemaError)))
}

function describeSchemaError(e: ErrorObject): string {
  const path = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.')
  const at = (key: string): string => (path === '' ? key : `${path}.${key}`)
  const schema = (e.parentSchema ?? {}) as { type?: string; minimum?: number; maximum?: number; properties?: object }
  const got = JSON.stringify(e.data)
  switch (e.keyword) {
    case 'additionalProperties': {
      const typed = String(e.params.additionalProperty)
      const known = Object.fromEntries(Object.keys(schema.properties ?? {}).map((k) => [k, null]))
      return `${at(typed)}: unknown key (${knownKeys(known, typed, path)})`
    }
    case 'minimum':
    case 'maximum':
      return `${path}: must be an integer from ${schema.minimum ?? Number.MIN_SAFE_INTEGER} to ${schema.maximum ?? Number.MAX_SAFE_INTEGER}, got ${got}`
    case 'enum':
      return `${path}: must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}, got ${got}`
    case 'type':
      return `${path}: must be ${e.params.type === 'integer' ? 'an integer' : `of type ${String(e.params.type)}`}, got ${got}`
    default:
      return `${path}: ${e.message ?? 'invalid'}, got ${got}`
  }
}

/**
 * The raw (merged, overridden) config checked against the schema, then given its types: the schema
 * states every type and range once; what it cannot say (sequence names, CIDRs, one limit against
 * another, which JWT key) is checked here.
 */
export function parseConfig(raw: { [k: string]: Json }): PlatformConfig {
  checkSchema(raw)
  const http = sub(sub(raw, 'ENTRY_POINTS'), 'WEB_SERVICE_FACADE_HTTP')
  const seq = str(http, 'defaultSequenceName')
  if (!isSequenceName(seq)) throw new ConfigError(`${HP}.defaultSequenceName: unknown sequence '${seq}'`)
  const apiId = str(http, 'defaultApiId')
  if (!isApiMode(apiId)) throw new ConfigError(`${HP}.defaultApiId: must be ROA or RMC, got '${apiId}'`)
  const gateway = gatewaySection(http, seq, apiId)
  const config: PlatformConfig = {
    rateLimits: parseRateLimits((raw.RATE_LIMITS ?? { rules: [] }) as Section),
    admission: parseAdmission(sub(raw, 'ADMISSION')),
    gateway,
    pool: poolSection(sub(raw, 'WORKER_POOL')),
    dispatch: dispatchSection(sub(raw, 'DISPATCH')),
    platform: platformSection(sub(raw, 'PLATFORM')),
    admin: adminSection(sub(raw, 'ADMIN')),
    logging: loggingSection(sub(raw, 'LOGGING')),
    edge: edgeSection(sub(raw, 'EDGE'), gateway.tls),
    microservices: microservicesSection(sub(raw, 'MICROSERVICES'))
  }
  try {
    peerMatcher(config.gateway.trust.trustedPeers)
  } catch (err) {
    throw new ConfigError(`${HP}.trust.trustedPeers: ${errorMessage(err)}`, { cause: err })
  }
  checkPorts(config)
  if (config.pool.minThreads > config.pool.maxThreads)
    throw new ConfigError(
      `WORKER_POOL.minThreads (${config.pool.minThreads}) exceeds maxThreads (${config.pool.maxThreads})`
    )
  if (config.dispatch.maxFrameBytes < config.gateway.maxBodyBytes + 1024)
    throw new ConfigError(
      `DISPATCH.maxFrameBytes must exceed ${HP}.maxBodyBytes by at least 1024 (room for the frame envelope)`
    )
  return deepFreeze(config)
}

const HP = 'ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP'

function gatewaySection(http: Section, seq: SequenceName, apiId: ApiMode): PlatformConfig['gateway'] {
  const cors = sub(http, 'cors')
  const trust = sub(http, 'trust')
  const tracing = sub(http, 'tracing')
  return {
    host: str(http, 'host'),
    port: int(http, 'port'),
    tls: parseTls(http, `${HP}.tls`),
    allowPlaintext: bool(http, 'allowPlaintext'),
    threads: threadCount(http),
    busyPollMicroseconds: int(http, 'busyPollMicroseconds'),
    defaultSequenceName: seq,
    defaultApiId: apiId,
    maxBodyBytes: int(http, 'maxBodyBytes'),
    maxHeaderBytes: int(http, 'maxHeaderBytes'),
    executingTimeoutMs: int(http, 'executingTimeoutMs'),
    bodyTimeoutMs: int(http, 'bodyTimeoutMs'),
    maxInFlight: int(http, 'maxInFlight'),
    maxBodyBytesInFlight: int(http, 'maxBodyBytesInFlight'),
    maxDepth: int(http, 'maxDepth'),
    retryAfterSeconds: int(http, 'retryAfterSeconds'),
    cors: {
      allowedOrigins: strings(cors, 'allowedOrigins'),
      maxAgeSeconds: int(cors, 'maxAgeSeconds'),
      allowIdentityHeaders: bool(cors, 'allowIdentityHeaders')
    },
    trust: {
      trustedPeers: strings(trust, 'trustedPeers'),
      untrustedIdentity: trust.untrustedIdentity as 'drop' | 'refuse'
    },
    tracing: { generateTraceparent: bool(tracing, 'generateTraceparent') }
  }
}

function poolSection(pool: Section): PlatformConfig['pool'] {
  return {
    // "auto": one thread per core. More threads than cores cost memory, CPU per request and tail
    // latency with large bodies (docs/performance.md).
    maxThreads: pool.maxThreads === 'auto' ? Math.min(MAX_POOL_THREADS, usableCores()) : int(pool, 'maxThreads'),
    minThreads: int(pool, 'minThreads'),
    idleTimeoutMs: int(pool, 'idleTimeoutMs'),
    maxQueue: int(pool, 'maxQueue'),
    taskTimeoutMs: int(pool, 'taskTimeoutMs'),
    inlineMaxBytes: int(pool, 'inlineMaxBytes')
  }
}

function dispatchSection(dispatch: Section): PlatformConfig['dispatch'] {
  return {
    connectionsPerMicroservice: int(dispatch, 'connectionsPerMicroservice'),
    connectTimeoutMs: int(dispatch, 'connectTimeoutMs'),
    pingIntervalMs: int(dispatch, 'pingIntervalMs'),
    availabilityTimeoutMs: int(dispatch, 'availabilityTimeoutMs'),
    ejectAfterMs: int(dispatch, 'ejectAfterMs'),
    reconnectMinMs: int(dispatch, 'reconnectMinMs'),
    reconnectMaxMs: int(dispatch, 'reconnectMaxMs'),
    maxFrameBytes: int(dispatch, 'maxFrameBytes'),
    servingVersions: dispatch.servingVersions as 'all' | 'newest'
  }
}

function platformSection(pf: Section): PlatformConfig['platform'] {
  const unpack = sub(pf, 'unpack')
  const instances = (pf.instances ?? {}) as Section
  return {
    uploadDirectory: resolve(ROOT, str(pf, 'uploadDirectory')),
    deploymentDirectory: resolve(ROOT, str(pf, 'deploymentDirectory')),
    controlSocket: resolve(ROOT, str(pf, 'controlSocket')),
    socketDirectory: socketDirectory(pf),
    bootstrap: strings(pf, 'bootstrap').map((d) => resolve(ROOT, d)),
    drainTimeoutMs: int(pf, 'drainTimeoutMs'),
    drainGraceMs: int(pf, 'drainGraceMs'),
    drainIdleMs: int(pf, 'drainIdleMs'),
    startTimeoutMs: int(pf, 'startTimeoutMs'),
    localTransport: pf.localTransport === undefined ? 'unix' : (pf.localTransport as 'unix' | 'tcp'),
    instances: Object.fromEntries(Object.keys(instances).map((k) => [k, int(instances, k)])),
    unpack: {
      maxEntries: int(unpack, 'maxEntries'),
      maxEntryBytes: int(unpack, 'maxEntryBytes'),
      maxTotalBytes: int(unpack, 'maxTotalBytes')
    }
  }
}

function adminSection(admin: Section): PlatformConfig['admin'] {
  return {
    enabled: bool(admin, 'enabled'),
    host: str(admin, 'host'),
    port: int(admin, 'port'),
    tls: parseTls(admin, 'ADMIN.tls'),
    allowPlaintext: bool(admin, 'allowPlaintext'),
    metrics: bool(admin, 'metrics'),
    readyRequires: admin.readyRequires === undefined ? [] : strings(admin, 'readyRequires'),
    deployTokenEnv: optionalString(admin, 'deployTokenEnv')
  }
}

function loggingSection(logging: Section): PlatformConfig['logging'] {
  return {
    level: logging.level as (typeof LOG_LEVELS)[number],
    accessLog: bool(logging, 'accessLog'),
    accessLogSample: logging.accessLogSample as number,
    accessLogSlowMs: int(logging, 'accessLogSlowMs'),
    instanceLogMaxBytes: int(logging, 'instanceLogMaxBytes'),
    instanceLogFiles: int(logging, 'instanceLogFiles')
  }
}

function edgeSection(edge: Section, gatewayTls: TlsConfig | null): PlatformConfig['edge'] {
  const allowPlaintext = bool(edge, 'allowPlaintext')
  return {
    enabled: bool(edge, 'enabled'),
    host: str(edge, 'host'),
    port: int(edge, 'port'),
    threads: threadCount(edge),
    tls: parseTls(edge, 'EDGE.tls') ?? (allowPlaintext ? null : edgeTlsOf(gatewayTls)),
    allowPlaintext,
    swagger: strings(edge, 'swagger'),
    auth: parseEdgeAuth((edge.auth ?? { required: false, apiKeys: [], jwt: null }) as Section)
  }
}

/**
 * The gateway's TLS as the edge takes it: the same certificates and client-certificate mode, without
 * the certificates trusted to send identity headers, which the edge takes from EDGE.auth.certificates.
 */
function edgeTlsOf(gateway: TlsConfig | null): TlsConfig | null {
  const clients = gateway?.clientCertificates ?? null
  if (gateway === null || clients === null || clients.trusted.length === 0) return gateway
  return { ...gateway, clientCertificates: { ...clients, trusted: [] } }
}

function microservicesSection(section: Section): PlatformConfig['microservices'] {
  return {
    remote: ((section.remote ?? []) as Section[]).map((o, k) => ({
      name: str(o, 'name'),
      host: str(o, 'host'),
      port: int(o, 'port'),
      secretEnv: optionalString(o, 'secretEnv'),
      tls: parseTlsClient(o, `MICROSERVICES.remote[${k}].tls`)
    })),
    discovery: ((section.discovery ?? []) as Section[]).map((o, k) => {
      const at = `MICROSERVICES.discovery[${k}]`
      const srv = o.srv === undefined ? false : bool(o, 'srv')
      const port = o.port === undefined || o.port === null ? null : int(o, 'port')
      if (!srv && port === null) throw new ConfigError(`${at}: a port is needed unless srv is true`)
      return {
        name: str(o, 'name'),
        dns: str(o, 'dns'),
        port,
        srv,
        secretEnv: optionalString(o, 'secretEnv'),
        tls: parseTlsClient(o, `${at}.tls`),
        intervalMs: o.intervalMs === undefined ? 5000 : int(o, 'intervalMs')
      }
    }),
    dnsServers: section.dnsServers === undefined ? [] : strings(section, 'dnsServers'),
    directories: strings(section, 'directories').map((d) => resolve(ROOT, d)),
    restartMinMs: int(section, 'restartMinMs'),
    restartMaxMs: int(section, 'restartMaxMs')
  }
}

/** Two listeners on one port of overlapping addresses (0.0.0.0 and :: overlap every address). */
function checkPorts(config: PlatformConfig): void {
  const listeners: Array<[string, string, number]> = [[`${HP}.port`, config.gateway.host, config.gateway.port]]
  if (config.edge.enabled) listeners.push(['EDGE.port', config.edge.host, config.edge.port])
  if (config.admin.enabled) listeners.push(['ADMIN.port', config.admin.host, config.admin.port])
  const any = (host: string): boolean => host === '0.0.0.0' || host === '::'
  for (const [k, [key, host, port]] of listeners.entries()) {
    const same = listeners
      .slice(k + 1)
      .find(([, h, p]) => p === port && port !== 0 && (h === host || any(h) || any(host)))
    if (same !== undefined)
      throw new ConfigError(`${key} and ${same[0]} are both ${port}: each listener needs a port of its own`)
  }
}

function deepFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null) {
    for (const v of Object.values(o)) deepFreeze(v)
    Object.freeze(o)
  }
  return o
}

/** The built-in config file's values, for tests and tools that override a few keys. */
export function defaultConfig(): PlatformConfig {
  return loadConfig(DEFAULT_CONFIG_FILE, {})
}

function tlsFiles(o: Section): TlsFiles {
  return {
    certFile: resolve(ROOT, str(o, 'certFile')),
    keyFile: resolve(ROOT, str(o, 'keyFile')),
    passphraseEnv: optionalString(o, 'passphraseEnv')
  }
}

/** A listener's `tls` block, its paths resolved as every other path of the config; null when absent. */
function parseTls(listener: Section, at: string): TlsConfig | null {
  if (listener.tls === undefined || listener.tls === null) return null
  const t = sub(listener, 'tls')
  const names = (t.serverNames ?? {}) as Section
  return {
    at,
    ...tlsFiles(t),
    minVersion: t.minVersion === undefined ? 'TLSv1.2' : (t.minVersion as 'TLSv1.2' | 'TLSv1.3'),
    ciphers: optionalString(t, 'ciphers'),
    serverNames: Object.fromEntries(Object.keys(names).map((n) => [n, tlsFiles(sub(names, n))])),
    reloadIntervalMs: t.reloadIntervalMs === undefined ? 10_000 : int(t, 'reloadIntervalMs'),
    clientCertificates: parseClientCertificates(t, `${at}.clientCertificates`)
  }
}

function parseClientCertificates(t: Section, at: string): ClientCertificates | null {
  if (t.clientCertificates === undefined || t.clientCertificates === null) return null
  const c = sub(t, 'clientCertificates')
  if (c.mode === 'off') return null
  if (c.caFile === undefined)
    throw new ConfigError(
      `${at}.caFile: the CAs a client certificate must chain to are needed with mode "${str(c, 'mode')}"`
    )
  return {
    at,
    mode: str(c, 'mode') as ClientCertificates['mode'],
    caFile: resolve(ROOT, str(c, 'caFile')),
    trusted: c.trusted === undefined ? [] : strings(c, 'trusted')
  }
}

function parseTlsClient(entry: Section, at: string): TlsClientFiles | null {
  if (entry.tls === undefined || entry.tls === null) return null
  const t = sub(entry, 'tls')
  const file = (key: string): string | null => (t[key] === undefined ? null : resolve(ROOT, str(t, key)))
  const tls = {
    at,
    caFile: resolve(ROOT, str(t, 'caFile')),
    certFile: file('certFile'),
    keyFile: file('keyFile'),
    passphraseEnv: optionalString(t, 'passphraseEnv'),
    serverName: optionalString(t, 'serverName')
  }
  if ((tls.certFile === null) !== (tls.keyFile === null))
    throw new ConfigError(`${at}: certFile and keyFile go together (the gateway's own pair, for mutual TLS)`)
  return tls
}

function parseAdmission(o: Section): AdmissionSection {
  const p = sub(o, 'priority')
  const a: AdmissionSection = {
    adaptive: bool(o, 'adaptive'),
    initialLimit: int(o, 'initialLimit'),
    minLimit: int(o, 'minLimit'),
    maxLimit: int(o, 'maxLimit'),
    tolerance: o.tolerance as number,
    slackMs: o.slackMs as number,
    windowMs: int(o, 'windowMs'),
    baselineMs: int(o, 'baselineMs'),
    warmupMs: int(o, 'warmupMs'),
    priorityShare: o.priorityShare as number,
    priority: { users: strings(p, 'users'), privilegeNames: strings(p, 'privilegeNames') }
  }
  if (a.minLimit > a.initialLimit || a.initialLimit > a.maxLimit)
    throw new ConfigError(
      `ADMISSION: minLimit (${a.minLimit}) <= initialLimit (${a.initialLimit}) <= maxLimit (${a.maxLimit}) is needed`
    )
  return a
}

function parseRateLimits(o: Section): RateLimitsSection {
  const names = new Set<string>()
  const rules = ((o.rules ?? []) as Section[]).map((r, k): RateRule => {
    const at = `RATE_LIMITS.rules[${k}]`
    const name = str(r, 'name')
    if (names.has(name)) throw new ConfigError(`${at}.name: '${name}' names another rule too`)
    names.add(name)
    const m = (r.match ?? {}) as Section
    const bucket = r.rate !== undefined
    if (bucket === (r.count !== undefined))
      throw new ConfigError(`${at}: give either rate (and burst) or count (and windowSeconds)`)
    if (bucket && r.windowSeconds !== undefined) throw new ConfigError(`${at}.windowSeconds: goes with count, not rate`)
    if (!bucket && r.burst !== undefined) throw new ConfigError(`${at}.burst: goes with rate, not count`)
    if (!bucket && r.windowSeconds === undefined)
      throw new ConfigError(`${at}.windowSeconds: the window count is counted in is needed with count`)
    const rate = bucket ? (r.rate as number) : 0
    return {
      name,
      match: {
        microservice: optionalString(m, 'microservice'),
        service: optionalString(m, 'service'),
        method: optionalString(m, 'method'),
        apiId: optionalString(m, 'apiId') as ApiMode | null
      },
      key: (r.key ?? 'identity') as RateRule['key'],
      scope: (r.scope ?? 'node') as RateRule['scope'],
      limit: bucket
        ? { kind: 'bucket', rate, burst: r.burst === undefined ? Math.max(1, Math.ceil(rate)) : int(r, 'burst') }
        : { kind: 'window', count: int(r, 'count'), windowSeconds: int(r, 'windowSeconds') }
    }
  })
  let redis: RateLimitsSection['redis'] = null
  if (o.redis !== undefined && o.redis !== null) {
    const r = sub(o, 'redis')
    redis = {
      url: str(r, 'url'),
      prefix: r.prefix === undefined ? 'igw:rl' : str(r, 'prefix'),
      timeoutMs: r.timeoutMs === undefined ? 50 : int(r, 'timeoutMs'),
      retryMs: r.retryMs === undefined ? 1000 : int(r, 'retryMs'),
      onFailure: (r.onFailure ?? 'local') as 'local' | 'refuse'
    }
  }
  const cluster = rules.findIndex((r) => r.scope === 'cluster')
  if (cluster >= 0 && redis === null)
    throw new ConfigError(
      `RATE_LIMITS.rules[${cluster}].scope: "cluster" rules are counted in Redis; name it in RATE_LIMITS.redis.url`
    )
  return {
    rules,
    maxKeys: o.maxKeys === undefined ? 65536 : int(o, 'maxKeys'),
    headers: o.headers === undefined ? true : bool(o, 'headers'),
    redis
  }
}

/** A listener's `threads`: 1 when absent, the cores this process may use for "auto". */
function threadCount(section: Section): number {
  return section.threads === undefined ? 1 : section.threads === 'auto' ? usableCores() : int(section, 'threads')
}

/**
 * A unix socket's path has at most 107 bytes (sun_path's 108 with its NUL, unix(7)); an instance's is
 * the directory, the run's own subdirectory and `N.sock`. A home too deep for that fails at start,
 * naming the setting, rather than at the first instance.
 */
const SUN_PATH_MAX = 107
const LONGEST_SOCKET_TAIL = '/igw-XXXXXX/1000000.sock'

function socketDirectory(pf: Section): string {
  const dir =
    pf.socketDirectory === undefined || pf.socketDirectory === null
      ? dirname(resolve(ROOT, str(pf, 'controlSocket')))
      : resolve(ROOT, str(pf, 'socketDirectory'))
  const bytes = Buffer.byteLength(dir + LONGEST_SOCKET_TAIL)
  if (pf.localTransport !== 'tcp' && bytes > SUN_PATH_MAX)
    throw new ConfigError(
      `PLATFORM.socketDirectory: the instances' sockets under ${dir} would have paths of up to ${bytes} bytes, ` +
        `over the ${SUN_PATH_MAX} a unix socket allows; set it (PLATFORM__PLATFORM__socketDirectory=…) to a ` +
        'shorter directory, e.g. /run/igw or /tmp'
    )
  return dir
}
