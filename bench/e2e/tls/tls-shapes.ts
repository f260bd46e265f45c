// The TLS benchmark's types (subjects, cases, measurements, the run's record) and its key and case names.
import type { BenchCase } from '../cases'
import type { LoadResult } from '../harness/wrk'
import type { ProcessCost } from '../results'

export type KeyType = 'rsa' | 'ecdsa'
export type SubjectName = 'gateway' | 'nginx'
export type CaseKind = 'keepalive' | 'resumed' | 'full' | 'large'

export const KEY_TITLE: Record<KeyType, string> = { rsa: 'RSA 2048', ecdsa: 'ECDSA P-256' }
export const CASE_IDS = [
  'keepalive-c1',
  'keepalive-c64',
  'resumed-rsa',
  'resumed-ecdsa',
  'full-rsa',
  'full-ecdsa',
  '1mb-c8'
]

export interface Certificate {
  key: KeyType
  certFile: string
  keyFile: string
  ca: Buffer
}

/** A subject listening with one key type's certificate. */
export interface Running {
  subject: SubjectName
  key: KeyType
  port: number
  url: string
  /** The processes whose CPU is the subject's cost: gateway and microservice; nginx worker and bare server. */
  pids: Array<[string, number]>
  /** nginx only: a second port logging $ssl_session_reused, and its log. */
  probe: { port: number; log: string } | null
}

export interface TlsCase {
  id: string
  title: string
  kind: CaseKind
  key: KeyType
  /** wrk connections; for full handshakes, s_time clients. */
  connections: number
  bc: BenchCase
}

/** What a load generator reports of one run. */
export interface Load {
  /** Calls (wrk) or handshakes (s_time). */
  calls: number
  rate: number
  /** null for s_time, which times nothing per handshake. */
  latencyMs: LoadResult['latencyMs'] | null
  errors: number
  non2xx: number
}

export interface Measured extends Load {
  subject: SubjectName
  processes: ProcessCost[]
  cpuMsPerCall: number
  /** New TCP connections accepted per call (the kernel's PassiveOpens, machine-wide); null: not readable. */
  connectionsPerCall: number | null
}

/** A subject's runs of a case: each number the median over the rounds; errors summed. */
export interface Summary {
  subject: SubjectName
  runs: number
  rate: number
  p50Ms: number | null
  p99Ms: number | null
  cpuMsPerCall: number
  connectionsPerCall: number | null
  errors: number
  non2xx: number
  /** Per process, from the run with the median rate. */
  processes: ProcessCost[]
}

export interface TlsCaseResult {
  id: string
  title: string
  kind: CaseKind
  key: KeyType
  connections: number
  gateway: Summary | null
  nginx: Summary | null
  /** gateway over nginx (null without both). */
  rateRatio: number | null
  p50Ratio: number | null
  cpuRatio: number | null
  rounds: Measured[]
}

export interface Negotiated {
  subject: SubjectName
  key: KeyType
  protocol: string | null
  ciphersuite: string | null
  group: string | null
  signature: string | null
}

export interface Resumption {
  subject: SubjectName
  key: KeyType
  /** s_client's session line of each connection ("New, TLSv1.3" / "Reused, TLSv1.3"). */
  first: string | null
  second: string | null
  /** The HTTP status each connection's call got. */
  statuses: Array<number | null>
  resumed: boolean
}

/** What nginx saw of wrk's handshakes with `Connection: close` ($ssl_session_reused). */
export interface WrkResumption {
  key: KeyType
  handshakes: number
  resumed: number
}

export interface Target {
  what: string
  case: string
  gateway: number | null
  nginx: number | null
  ratio: number | null
  needed: string
  met: boolean | null
  /** gateway CPU per call over nginx's (the bare server's included), beside the target. */
  cpuRatio: number | null
}

export interface TlsRun {
  when: string
  commit: string
  durationS: number
  rounds: number
  warmupS: number
  cpus: number
  versions: Record<string, string>
  keepAliveKey: KeyType
  /** nginx's TLS 1.3 suites, set to what the gateway negotiates (null: nginx's defaults). */
  nginxCiphersuites: Partial<Record<KeyType, string | null>>
  negotiated: Negotiated[]
  resumption: Resumption[]
  wrkResumption: WrkResumption[]
  cases: TlsCaseResult[]
  targets: Target[]
}

export interface Options {
  durationS: number
  rounds: number
  warmupS: number
  subjects: SubjectName[]
  cases: string[]
  key: KeyType
  hsConnections: number
  hsClients: number
  json: string | null
  log: (line: string) => void
}
