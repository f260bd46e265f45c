// What an e2e run measures and how it is asked for: the shapes bench/e2e/run.ts fills and the
// gate, the report and the A/B benches read.
import type { LoadResult } from './harness/wrk'
import type { HostMachine } from './harness/host'

export interface ProcessCost {
  name: string
  pid: number
  cpuMsPerRequest: number
  /** The kernel's part of cpuMsPerRequest, 0 to 1 (docs/performance.md, "One call alone, user and system"). */
  systemShare: number
  cpuPercent: number
  rssMb: number
}
/** What is measured: the gateway, and the references it is compared with in the same run. */
export type Subject = 'gateway' | 'ceiling' | 'floor' | 'proxy' | 'hop' | 'nginx' | 'haproxy'
/** The references measured beside the gateway and the ceiling, when asked for. */
export type Extra = 'proxy' | 'hop' | 'nginx' | 'haproxy'

export interface SubjectResult {
  subject: Subject
  rps: number
  latencyMs: LoadResult['latencyMs']
  errors: number
  non2xx: number
  requests: number
  processes: ProcessCost[]
  /** The share of all cores' time the host took while this subject ran (steal), 0 to 1; absent in older results. */
  stealShare?: number
}
export interface CaseResult {
  case: string
  title: string
  connections: number
  gateway: SubjectResult
  ceiling: SubjectResult
  floor: SubjectResult | null
  /** The fastify + undici proxy in front of a node:http backend (with --proxy). */
  proxy?: SubjectResult | null
  ratio: number
  p50Ratio: number
  /** gateway req/s over the proxy's (with --proxy). */
  proxyRatio?: number | null
  /** The bare hop (bench/e2e/references/bare-hop.ts, with --hop): two processes and a Unix socket, no gateway work. */
  hop?: SubjectResult | null
  /** nginx (one worker) and HAProxy (one thread) in front of the ceiling's server (with --refs). */
  nginx?: SubjectResult | null
  haproxy?: SubjectResult | null
}
export interface RunResult {
  when: string
  commit: string
  durationS: number
  /** The machine the run was made on (absent in older results). */
  machine?: HostMachine
  /** With --threads: the cases at the first thread count measured (1), as a run without it gives them. */
  cases: CaseResult[]
  soak: SoakResult | null
  /** The scaling curve (with --threads). */
  threads?: ThreadsRun | null
}
/** The scaling curve (--threads): every case at every thread count, measured in one run. */
export interface ThreadsRun {
  /** The thread counts, ascending; 1 is always among them (scaling is over the rate at 1). */
  counts: number[]
  /** Whether the servers and the clients ran on cores of their own, and why not when they did not. */
  pinned: boolean
  pinning: string
  cases: ThreadsCase[]
}
export interface ThreadsCase {
  case: string
  title: string
  connections: number
  points: ThreadsPoint[]
}
/** One case at one thread count. */
export interface ThreadsPoint {
  threads: number
  /** Instances of the example microservice behind the gateway. */
  instances: number
  /** wrk's threads: one per listener thread, as far as the cores and connections allow. */
  wrkThreads: number
  /** The CPUs of the servers (gateway, ceiling, proxies), and of wrk and the microservices (null: not pinned). */
  serverCpus: string | null
  clientCpus: string | null
  /** Measured as a run without --threads measures a case (the floor only at 1 thread: it has none). */
  result: CaseResult
  /** Each subject's req/s over its req/s at 1 thread. */
  scaling: Partial<Record<Subject, number>>
  /** gateway req/s over nginx's and HAProxy's at this count (with --refs). */
  nginxRatio: number | null
  haproxyRatio: number | null
  /** The gateway's scaling over the ceiling's: 1 is scaling as well as a bare uWS server does. */
  scalingRatio: number
  /** The gateway process's CPU per call over its CPU per call at 1 thread; and with the microservices'. */
  gatewayCpuRatio: number
  platformCpuRatio: number
}
export interface SoakResult {
  seconds: number
  processes: Array<{ name: string; startMb: number; endMb: number; growthPercent: number }>
}

export interface RunOptions {
  cases: string[]
  /** Extra cases from a file (your own endpoints); run against `target`. */
  caseFile: string | null
  durationS: number
  connections: number
  rounds: number
  warmupS: number
  floor: boolean
  target: string | null
  soakS: number
  /** Also measure the fastify + undici proxy reference (bench/e2e/references/fastify-proxy.ts) each round. */
  proxy?: boolean
  /** Also measure the bare hop (bench/e2e/references/bare-hop.ts) each round. */
  hop?: boolean
  /** Also measure nginx and HAProxy in front of the ceiling's server (bench/e2e/references/c-proxies.ts) each round. */
  refs?: boolean
  /** Load before the soak's RSS samples start (V8 grows its old space once in the first minute). */
  soakWarmupS: number
  /** The thread counts of the scaling curve (--threads 1,2,4); absent, null or empty: one run as before. */
  threads?: number[] | null
  /**
   * Instances of the example microservice at every count (--instances); default: one per listener
   * thread when pinned, else one.
   */
  instances?: number | null
  log: (line: string) => void
}
