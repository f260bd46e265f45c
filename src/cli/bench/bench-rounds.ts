// One `microservice bench` run: the load at each concurrency, in rounds beside the reference server,
// with the platform's CPU per call when it runs here.
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { checkServerIdentity, connect as tlsConnect, type ConnectionOptions, type PeerCertificate } from 'node:tls'
import { productVersion } from '../../common/contract/product-version'
import { InternalError } from '../../common/errors/internal'
import { LatencyHistogram } from './histogram'
import { runLoad, type LoadResult, type LoadTarget, type Progress } from './load-generator'
import {
  RESULT_FORMAT,
  callsOf,
  connectionsText,
  type BenchResult,
  type ReferenceRound,
  type RunResult
} from './bench-result'
import type { BenchPlan, BenchTls } from './bench-plan'
import { BenchUsageError } from './usage-error'
import { compare, spreadPercent } from './baseline'
import { median, processesCpuNs, threadCpuNs } from '../../common/process/cpu-time'

/** How long a run of a number of calls may take at most (a target that stops answering ends it). */
const COUNT_CAP_MS = 10 * 60 * 1000

function mainThreadCpuNs(pid: number): number | null {
  try {
    return threadCpuNs(pid)
  } catch {
    return null
  }
}

function requestBytes(plan: BenchPlan, host: string, path: string): Buffer {
  const head = [
    `POST ${path} HTTP/1.1`,
    `Host: ${host}`,
    `Content-Type: ${plan.contentType}`,
    `Content-Length: ${plan.body.length}`,
    ...Object.entries(plan.headers).map(([k, v]) => `${k}: ${v}`),
    '',
    ''
  ].join('\r\n')
  return Buffer.concat([Buffer.from(head, 'latin1'), plan.body])
}

/** The bare server measured beside the target; stopped with its parent (its stdin ends with it). */
async function startReference(timeoutMs = 10000): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(__dirname, 'reference-server.js')], {
    stdio: ['pipe', 'pipe', 'inherit']
  })
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let text = ''
      const timer = setTimeout(
        () => reject(new InternalError('IGW_BENCH', `the reference server did not listen within ${timeoutMs} ms`)),
        timeoutMs
      )
      child.stdout!.on('data', (d: Buffer) => {
        text += d.toString()
        const m = /listening (\d+)/.exec(text)
        if (m === null) return
        clearTimeout(timer)
        resolve(Number(m[1]))
      })
      child.on('error', (err) =>
        reject(new InternalError('IGW_BENCH', `the reference server did not start: ${err.message}`))
      )
      child.on('exit', (code) =>
        reject(new InternalError('IGW_BENCH', `the reference server ended (${code}) before it listened`))
      )
    })
    return { port, child }
  } catch (err) {
    child.kill('SIGKILL')
    throw err
  }
}

export function progressLine(label: string): (p: Progress) => void {
  return (p) => {
    const of =
      p.totalMs === null
        ? `${p.done} answers`
        : `${(p.elapsedMs / 1000).toFixed(1)} s / ${(p.totalMs / 1000).toFixed(0)} s`
    process.stderr.write(
      `\r\x1b[K${label}  ${of}  ${Math.round(p.rps).toLocaleString('en-US')} req/s  p99 ${p.p99Ms.toFixed(2)} ms`
    )
  }
}

/** Node's TLS options for the plan's https:// target. */
function tlsOptions(t: BenchTls): ConnectionOptions {
  return {
    rejectUnauthorized: !t.insecure,
    ...(t.ca !== null ? { ca: t.ca } : {}),
    ...(t.servername !== null ? { servername: t.servername } : {}),
    ...(t.client !== null ? { cert: t.client.cert, key: t.client.key } : {})
  }
}

/** How one TLS handshake with the target ended. */
type Handshake =
  | { kind: 'trusted' }
  | { kind: 'untrusted'; reason: string; altname: boolean }
  | { kind: 'refused' }
  | { kind: 'failed'; reason: string }

/**
 * One handshake that verifies nothing and then judges the certificate itself: a refusal tells why
 * (Node's own error on a connection of the load says only that it closed).
 */
function handshake(target: LoadTarget, tls: BenchTls, timeoutMs: number): Promise<Handshake> {
  return new Promise((resolve) => {
    const s = tlsConnect({ ...tlsOptions(tls), rejectUnauthorized: false, host: target.host, port: target.port })
    const done = (h: Handshake): void => {
      clearTimeout(timer)
      s.destroy()
      resolve(h)
    }
    const timer = setTimeout(() => done({ kind: 'failed', reason: `no handshake within ${timeoutMs} ms` }), timeoutMs)
    // OpenSSL's message runs over lines with its source file in it; its reason alone is the point.
    s.on('error', (err: NodeJS.ErrnoException & { reason?: string }) =>
      done(
        err.code === 'ECONNREFUSED'
          ? { kind: 'refused' }
          : { kind: 'failed', reason: err.reason ?? err.message.split('\n')[0]! }
      )
    )
    s.on('secureConnect', () => {
      // Node sets the OpenSSL code (or the name check's) as a string, whatever its type says.
      const code = s.authorizationError as unknown as string | null | undefined
      if (s.authorized || code == null) return done({ kind: 'trusted' })
      const altname = code === 'ERR_TLS_CERT_ALTNAME_INVALID'
      const checked = tls.servername ?? target.host
      const named = altname ? checkServerIdentity(checked, s.getPeerCertificate() as PeerCertificate) : undefined
      done({ kind: 'untrusted', reason: named?.message ?? code, altname })
    })
  })
}

/** Refuses an https:// target whose certificate is not trusted, naming the options that change that. */
async function checkCertificate(plan: BenchPlan, target: LoadTarget): Promise<void> {
  if (plan.tls === null) return
  const h = await handshake(target, plan.tls, plan.timeoutMs)
  if (h.kind === 'failed')
    throw new InternalError(
      'IGW_BENCH',
      `${plan.url.origin} did not complete a TLS handshake (${h.reason}): is it https://, and is this its address?`
    )
  if (h.kind !== 'untrusted' || plan.tls.insecure) return
  const by = plan.tls.caFile !== null ? `the CAs of --ca ${plan.tls.caFile}` : "Node's list of CAs"
  throw new BenchUsageError(
    h.altname
      ? `the certificate of ${plan.url.origin} does not name the host checked (${h.reason}): give --servername ` +
          'with a name it has, or --insecure to measure without verifying it'
      : `the certificate of ${plan.url.origin} is not trusted by ${by} (${h.reason}): give the CA that signed ` +
          'it with --ca FILE, or --insecure to measure without verifying it',
    false
  )
}

/** Whether a plain-HTTP target that did not answer speaks TLS: the likely cause, named. */
async function speaksTls(target: LoadTarget, timeoutMs: number): Promise<boolean> {
  const h = await handshake(
    target,
    { ca: null, caFile: null, insecure: true, servername: null, client: null },
    timeoutMs
  )
  return h.kind === 'trusted' || h.kind === 'untrusted'
}

/** Runs the plan; returns the result (already compared with the baseline, when one is given). */
export async function runBench(plan: BenchPlan): Promise<BenchResult> {
  const host = plan.url.host
  const target: LoadTarget = {
    host: plan.url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(plan.url.port || (plan.tls === null ? 80 : 443)),
    request: requestBytes(plan, host, plan.url.pathname),
    ...(plan.tls !== null ? { tls: tlsOptions(plan.tls) } : {})
  }
  const startedAt = new Date().toISOString()
  const problems: string[] = []
  const warnings: string[] = []
  if (plan.tls?.insecure === true) warnings.push(`the certificate of ${plan.url.origin} was not verified (--insecure)`)
  await checkCertificate(plan, target)
  await probe(plan, target)
  const reference = plan.reference ? await startReference() : null
  const refTarget: LoadTarget | null =
    reference === null
      ? null
      : { host: '127.0.0.1', port: reference.port, request: requestBytes(plan, '127.0.0.1', '/reference') }
  const runs: RunResult[] = []
  // Every answer is checked against the first one, across the connection counts.
  const answers: { expected: Buffer | null } = { expected: null }
  try {
    for (const connections of plan.connections)
      runs.push(await measureAt(plan, connections, target, reference, refTarget, answers, problems))
  } finally {
    reference?.child.kill('SIGTERM')
  }
  checkRuns(plan, runs, problems, warnings)
  return resultOf(plan, startedAt, runs, problems, warnings)
}

/** One call first, alone: an address that does not answer, or answers TLS to plain HTTP, is said so plainly. */
async function probe(plan: BenchPlan, target: LoadTarget): Promise<void> {
  const probe = await runLoad(target, {
    connections: 1,
    durationMs: plan.timeoutMs,
    requests: 1,
    timeoutMs: plan.timeoutMs,
    stopOnFailure: true
  })
  if (probe.answered === 0) {
    if (probe.timeouts === 0 && plan.tls === null && (await speaksTls(target, plan.timeoutMs)))
      throw new InternalError(
        'IGW_BENCH',
        `${plan.url.origin} speaks TLS, not plain HTTP: give --url https://${plan.url.host} (and --ca FILE or --insecure)`
      )
    throw new InternalError(
      'IGW_BENCH',
      probe.timeouts > 0
        ? `${plan.url.href} did not answer within ${plan.timeoutMs} ms`
        : `nothing answers at ${plan.url.origin}: is the platform running (npm start), and is this its address?`
    )
  }
}

/** A round's load and the CPU its processes spent on it (null where it could not be read). */
interface Measured {
  r: LoadResult
  ns: number | null
  us: number | null
  rps: number
}

async function measured(cpuNs: (() => number | null) | null, measure: () => Promise<LoadResult>): Promise<Measured> {
  const before = cpuNs === null ? null : cpuNs()
  const r = await measure()
  const after = cpuNs === null ? null : cpuNs()
  const ns = before === null || after === null || after < before || r.answered === 0 ? null : after - before
  return { r, ns, us: ns === null ? null : ns / 1000 / r.answered, rps: r.answered / (r.durationMs / 1000) }
}

/** The rounds at one connection count, the reference's alternating with the target's (ABBA). */
async function measureAt(
  plan: BenchPlan,
  connections: number,
  target: LoadTarget,
  reference: { port: number; child: ChildProcess } | null,
  refTarget: LoadTarget | null,
  answers: { expected: Buffer | null },
  problems: string[]
): Promise<RunResult> {
  const label = `${connectionsText(connections)}`
  const roundMs = plan.durationMs === null ? null : plan.durationMs / plan.rounds
  const rate = plan.rate
  const load = (t: LoadTarget, ms: number | null, requests: number | null, progress: boolean, check: boolean) =>
    runLoad(t, {
      connections,
      durationMs: ms ?? COUNT_CAP_MS,
      requests: requests ?? undefined,
      rate: rate ?? undefined,
      timeoutMs: plan.timeoutMs,
      expected: check ? answers.expected : undefined,
      onProgress: progress && plan.progress ? progressLine(label) : undefined
    })
  if (plan.warmupMs > 0) {
    await load(target, plan.warmupMs, null, false, false)
    if (refTarget !== null) await load(refTarget, plan.warmupMs, null, false, false)
  }
  let referenceFailures = 0
  const parts: LoadResult[] = []
  // CPU time and the answers of the rounds it was measured in (a round without it counts in neither).
  const cpu = { ns: 0, answered: 0, rounds: 0 }
  const rounds: ReferenceRound[] = []
  const referenceCpu = reference === null ? null : () => mainThreadCpuNs(reference.child.pid!)
  for (let k = 0; k < plan.rounds; k++) {
    // The processes are looked up each round: an instance restarted between rounds is a new pid.
    const pids = plan.processes === null ? null : await plan.processes()
    const measureTarget = () =>
      measured(pids === null ? null : () => processesCpuNs(pids), async () => {
        const r = await load(target, roundMs, plan.requests, true, plan.checkAnswers)
        if (plan.checkAnswers) answers.expected = r.expected
        parts.push(r)
        return r
      })
    const measureReference = () =>
      // The yardstick: the reference's main thread, where all its work is (its V8 helper threads'
      // compiling and collecting came and went by the round and moved the ratio with them).
      measured(referenceCpu, async () => {
        const r = await load(refTarget!, roundMs, plan.requests, false, false)
        referenceFailures += r.answered - (r.statuses.get(200) ?? 0) + r.transportErrors + r.timeouts
        return r
      })
    // ABBA order: the machine's drift within a pair falls on both sides alike.
    let t: Measured
    let ref: Measured | null = null
    if (refTarget !== null && k % 2 === 1) {
      ref = await measureReference()
      t = await measureTarget()
    } else {
      t = await measureTarget()
      if (refTarget !== null) ref = await measureReference()
    }
    if (t.ns !== null) {
      cpu.ns += t.ns
      cpu.answered += t.r.answered
      cpu.rounds++
    }
    if (ref !== null && ref.rps > 0) {
      const cpuRatio = t.us !== null && ref.us !== null && ref.us > 0 ? t.us / ref.us : null
      rounds.push({
        rps: t.rps,
        referenceRps: ref.rps,
        ratio: t.rps / ref.rps,
        cpuUsPerCall: t.us,
        referenceCpuUsPerCall: ref.us,
        cpuRatio
      })
    }
  }
  if (plan.progress) process.stderr.write('\r\x1b[K')
  if (referenceFailures > 0)
    problems.push(
      `the reference server failed ${referenceFailures} calls at ${connectionsText(connections)} (a header it cannot take?): the comparison would mean nothing`
    )
  // CPU per call only when every round measured it: a run of mixed rounds is not comparable.
  return summarize(connections, parts, rounds, cpu.rounds === plan.rounds ? cpu.ns / 1000 / cpu.answered : null)
}

/** What a demanding reader must be told of the runs: calls missing or failed, a saturated generator, a wide spread. */
function checkRuns(plan: BenchPlan, runs: RunResult[], problems: string[], warnings: string[]): void {
  for (const r of runs) {
    if (r.requests === 0) problems.push(`no call at ${connectionsText(r.connections)} was answered`)
    if (plan.requests !== null && callsOf(r) < plan.requests)
      warnings.push(
        `at ${connectionsText(r.connections)} ${callsOf(r)} of the ${plan.requests} calls asked for were made before the run's ${COUNT_CAP_MS / 60000}-minute cap`
      )
    if (r.errors.total > 0 && !plan.allowErrors)
      problems.push(
        `${r.errors.total} of ${callsOf(r)} calls at ${connectionsText(r.connections)} failed or differed from the first answer: their speed is not the method's`
      )
    if (r.generatorCpu >= 0.9)
      warnings.push(
        `at ${connectionsText(r.connections)} the load generator used ${Math.round(r.generatorCpu * 100)} % of a core: the numbers may be its limit, not the target's`
      )
    const spread = r.reference === null ? null : spreadPercent(r.reference.rounds)
    if (spread !== null && plan.baseline !== null && spread > plan.tolerancePercent / 2)
      warnings.push(
        `at ${connectionsText(r.connections)} the rounds spread ±${spread.toFixed(1)} % around their median: a tolerance of ${plan.tolerancePercent} % may fail unchanged code (more rounds, a longer --duration, or one connection, which batches nothing, are steadier)`
      )
  }
  if (runs.some((r) => r.errors.mismatched > 0))
    warnings.push(
      `an answer that differed: ${runs.find((r) => r.errors.mismatchSample !== null)!.errors.mismatchSample}`
    )
}

/** The result file's content, compared with the baseline when there is one. */
function resultOf(
  plan: BenchPlan,
  startedAt: string,
  runs: RunResult[],
  problems: string[],
  warnings: string[]
): BenchResult {
  const result: BenchResult = {
    format: RESULT_FORMAT,
    tool: { name: 'microservice bench', version: productVersion() },
    startedAt,
    target: {
      url: plan.url.href,
      route: plan.route,
      method: 'POST',
      contentType: plan.contentType,
      headers: plan.headers,
      bodyBytes: plan.body.length,
      bodySource: plan.bodySource
    },
    settings: {
      durationMs: plan.durationMs,
      requests: plan.requests,
      warmupMs: plan.warmupMs,
      rate: plan.rate,
      rounds: plan.rounds,
      timeoutMs: plan.timeoutMs,
      checkAnswers: plan.checkAnswers,
      allowErrors: plan.allowErrors,
      reference: plan.reference
    },
    runs,
    comparison: null,
    problems,
    warnings,
    ok: false
  }
  if (plan.baseline !== null) {
    result.comparison = compare(plan.baseline.result, result, plan.baseline.file, plan.tolerancePercent)
    for (const r of result.comparison.runs)
      if (r.regressed)
        problems.push(
          `at ${connectionsText(r.connections)} ${r.changePercent.toFixed(1)} % against ${plan.baseline.file} (tolerance ${plan.tolerancePercent} %)`
        )
  }
  result.ok = problems.length === 0
  return result
}

function summarize(
  connections: number,
  parts: LoadResult[],
  rounds: ReferenceRound[],
  cpuUsPerCall: number | null
): RunResult {
  const h = new LatencyHistogram()
  const sum = (f: (r: LoadResult) => number): number => parts.reduce((t, r) => t + f(r), 0)
  const byStatus: Record<string, number> = {}
  const byCode: Record<string, number> = {}
  for (const r of parts) {
    h.add(r.histogram)
    for (const [s, n] of r.statuses) byStatus[String(s)] = (byStatus[String(s)] ?? 0) + n
    for (const [c, n] of r.codes) byCode[c] = (byCode[c] ?? 0) + n
  }
  const durationMs = sum((r) => r.durationMs)
  const answered = sum((r) => r.answered)
  const failedStatus = Object.entries(byStatus)
    .filter(([s]) => !s.startsWith('2'))
    .reduce((t, [, n]) => t + n, 0)
  const mismatched = sum((r) => r.mismatched)
  const transport = sum((r) => r.transportErrors)
  const timeouts = sum((r) => r.timeouts)
  const unsent = sum((r) => r.unsent)
  const q = (x: number): number => h.quantileNs(x) / 1e6
  return {
    connections,
    durationMs,
    requests: answered,
    rps: durationMs > 0 ? answered / (durationMs / 1000) : 0,
    latencyMs: { mean: h.meanNs() / 1e6, p50: q(0.5), p90: q(0.9), p99: q(0.99), p999: q(0.999), max: h.maxNs / 1e6 },
    errors: {
      total: failedStatus + mismatched + transport + timeouts + unsent,
      byStatus,
      byCode,
      mismatched,
      mismatchSample: parts.find((r) => r.mismatchSample !== null)?.mismatchSample ?? null,
      transport,
      timeouts,
      unsent
    },
    bytes: { sent: sum((r) => r.bytesSent), received: sum((r) => r.bytesReceived) },
    generatorCpu: sum((r) => r.generatorCpu * r.durationMs) / durationMs,
    cpuUsPerCall,
    histogram: h.buckets().map(([ns, n]) => [ns / 1e6, n]),
    reference:
      rounds.length === 0
        ? null
        : {
            rps: median(rounds.map((r) => r.referenceRps)),
            ratio: median(rounds.map((r) => r.ratio)),
            cpuRatio: rounds.every((r) => r.cpuRatio !== null) ? median(rounds.map((r) => r.cpuRatio!)) : null,
            rounds
          }
  }
}
