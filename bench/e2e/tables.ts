// An e2e run as the text tables it prints: per case each subject's rate, latency and CPU, the ratios
// to the ceiling and the C proxies, the scaling curve, and a comparison with an earlier run.
import type { CaseResult, ProcessCost, RunResult, SubjectResult, ThreadsRun } from './results'
import { machineLine } from './harness/host'

const f = (x: number, d = 0): string => x.toFixed(d)

export function report(r: RunResult): string {
  const head = r.machine === undefined ? '' : `${machineLine(r.machine)}\n`
  if (r.threads != null) return head + threadsReport(r.threads)
  const lines: string[] = []
  for (const c of r.cases) {
    lines.push(`\n${c.title} (${c.case}), c=${c.connections}`)
    lines.push('subject  |   req/s | p50 ms | p99 ms | p99.9 ms | errors | non-2xx | CPU ms/req (per process) | RSS MB')
    for (const s of [
      c.gateway,
      c.ceiling,
      c.floor,
      c.proxy ?? null,
      c.hop ?? null,
      c.nginx ?? null,
      c.haproxy ?? null
    ]) {
      if (s === null) continue
      const cpu = s.processes.map((p) => `${p.name} ${p.cpuMsPerRequest.toFixed(4)} (${systemPercent(p)})`).join(', ')
      const rss = s.processes.map((p) => `${p.name} ${f(p.rssMb)}`).join(', ')
      lines.push(
        `${s.subject.padEnd(8)} | ${f(s.rps).padStart(7)} | ${f(s.latencyMs.p50, 2).padStart(6)} | ${f(s.latencyMs.p99, 2).padStart(6)} | ${f(s.latencyMs.p999, 2).padStart(8)} | ${String(s.errors).padStart(6)} | ${String(s.non2xx).padStart(7)} | ${cpu || '-'} | ${rss || '-'}`
      )
    }
    lines.push(
      `gateway/ceiling req/s ${f(c.ratio, 3)}; p50 ${f(c.p50Ratio, 2)}×${c.floor !== null ? `; floor/ceiling req/s ${f(c.floor.rps / c.ceiling.rps, 2)}` : ''}${c.proxyRatio != null ? `; gateway/proxy req/s ${f(c.proxyRatio, 2)}` : ''}`
    )
    const steal = stealLine(subjectResults(c))
    if (steal !== null) lines.push(steal)
    if (c.hop != null) lines.push(hopLine(c.gateway, c.ceiling, c.hop))
    for (const p of [c.nginx, c.haproxy])
      if (p != null)
        lines.push(
          `gateway/${p.subject}: req/s ${f(c.gateway.rps / p.rps, 2)}, p50 ${f(c.gateway.latencyMs.p50 / Math.max(p.latencyMs.p50, 0.001), 2)}×, p99 ${f(c.gateway.latencyMs.p99 / Math.max(p.latencyMs.p99, 0.001), 2)}×`
        )
  }
  if (r.soak !== null) {
    lines.push(
      `\nsoak ${r.soak.seconds} s: ` +
        r.soak.processes
          .map(
            (p) =>
              `${p.name} ${f(p.startMb, 1)} → ${f(p.endMb, 1)} MB (${p.growthPercent >= 0 ? '+' : ''}${f(p.growthPercent, 1)}%)`
          )
          .join(', ')
    )
  }
  return head + lines.join('\n')
}

/** How much of the cores' time the host took while each subject ran: a noisy round shows here. */
function stealLine(subjects: SubjectResult[]): string | null {
  const known = subjects.filter((s) => s.stealShare !== undefined)
  if (known.length === 0) return null
  return `host took (steal): ${known.map((s) => `${s.subject} ${f(100 * s.stealShare!, 1)} %`).join(', ')}`
}

/** A subject's CPU per call, all its processes together. */
export const cpuPerRequest = (s: SubjectResult): number => s.processes.reduce((n, p) => n + p.cpuMsPerRequest, 0)

/** A case's subjects that were measured, in the report's order. */
export function subjectResults(c: CaseResult): SubjectResult[] {
  return [c.gateway, c.ceiling, c.floor, c.proxy, c.hop, c.nginx, c.haproxy].filter(
    (s): s is SubjectResult => s != null
  )
}

/** The gateway process's own CPU per call (its listener threads included), without the microservices'. */
export const gatewayCpu = (s: SubjectResult): number =>
  s.processes.filter((p) => p.name === 'gateway').reduce((n, p) => n + p.cpuMsPerRequest, 0)

/** How much of a process's CPU the kernel spent: "sys 57 %". */
const systemPercent = (p: Pick<ProcessCost, 'systemShare'>): string => `sys ${f(100 * p.systemShare)} %`

/** CPU per call by process name: nginx's N workers are one entry ("nginx worker×4"). */
function cpuByName(s: SubjectResult): string {
  const byName = new Map<string, { count: number; ms: number; systemMs: number }>()
  for (const p of s.processes) {
    const e = byName.get(p.name) ?? { count: 0, ms: 0, systemMs: 0 }
    byName.set(p.name, {
      count: e.count + 1,
      ms: e.ms + p.cpuMsPerRequest,
      systemMs: e.systemMs + p.cpuMsPerRequest * p.systemShare
    })
  }
  return [...byName]
    .map(
      ([name, e]) =>
        `${name}${e.count > 1 ? `×${e.count}` : ''} ${f(e.ms, 4)} (${systemPercent({ systemShare: e.ms > 0 ? e.systemMs / e.ms : 0 })})`
    )
    .join(', ')
}

/** The scaling curve: per case, a table per thread count, then each subject's scaling side by side. */
function threadsReport(t: ThreadsRun): string {
  const lines: string[] = [`\n${t.pinning}`]
  for (const c of t.cases) {
    lines.push(`\n${c.title} (${c.case}), c=${c.connections}`)
    for (const pt of c.points) {
      const where = pt.serverCpus === null ? '' : `; servers on cpus ${pt.serverCpus}, clients on ${pt.clientCpus}`
      lines.push(
        `${pt.threads} thread${pt.threads > 1 ? 's' : ''} (${pt.instances} microservice instance${pt.instances > 1 ? 's' : ''}, wrk ${pt.wrkThreads} thread${pt.wrkThreads > 1 ? 's' : ''}${where})`
      )
      lines.push(
        'subject  |   req/s | scaling | p50 ms | p99 ms | errors | non-2xx | CPU ms/call | CPU ms/call per process'
      )
      for (const s of subjectResults(pt.result)) {
        const scaling = pt.scaling[s.subject]
        lines.push(
          `${s.subject.padEnd(8)} | ${f(s.rps).padStart(7)} | ${(scaling === undefined ? '-' : `${f(scaling, 2)}×`).padStart(7)} | ${f(s.latencyMs.p50, 2).padStart(6)} | ${f(s.latencyMs.p99, 2).padStart(6)} | ${String(s.errors).padStart(6)} | ${String(s.non2xx).padStart(7)} | ${(s.processes.length > 0 ? f(cpuPerRequest(s), 4) : '-').padStart(11)} | ${cpuByName(s) || '-'}`
        )
      }
      const r = pt.result
      const parts = [`gateway/ceiling req/s ${f(r.ratio, 3)}`]
      if (pt.nginxRatio !== null) parts.push(`gateway/nginx req/s ${f(pt.nginxRatio, 2)}`)
      if (pt.haproxyRatio !== null) parts.push(`gateway/haproxy req/s ${f(pt.haproxyRatio, 2)}`)
      if (pt.threads > 1)
        parts.push(
          `gateway scaling/ceiling scaling ${f(pt.scalingRatio, 2)} (${f(pt.scaling.gateway!, 2)}× / ${f(pt.scaling.ceiling!, 2)}×)`,
          `gateway CPU per call ${f(pt.gatewayCpuRatio, 2)}× its cost at 1 thread (with the microservices ${f(pt.platformCpuRatio, 2)}×)`
        )
      lines.push(parts.join('; '))
      const steal = stealLine(subjectResults(r))
      if (steal !== null) lines.push(steal)
    }
    const subjects = subjectResults(c.points[0]!.result)
      .map((s) => s.subject)
      .filter((s) => c.points.some((pt) => pt.threads > 1 && pt.scaling[s] !== undefined))
    if (c.points.length > 1) {
      lines.push(`scaling (req/s at N threads over req/s at 1): threads | ${subjects.join(' | ')}`)
      for (const pt of c.points.slice(1))
        lines.push(
          `  ${String(pt.threads).padStart(2)} | ${subjects.map((s) => (pt.scaling[s] === undefined ? '-' : `${f(pt.scaling[s], 2)}×`)).join(' | ')}`
        )
    }
  }
  return lines.join('\n')
}

/** Where the gateway's cost per call stands between the ceiling (one process) and the bare hop (two, no work). */
function hopLine(gateway: SubjectResult, ceiling: SubjectResult, hop: SubjectResult): string {
  const front = hop.processes[0]?.cpuMsPerRequest ?? 0
  const gw = gateway.processes[0]?.cpuMsPerRequest ?? 0
  const ceil = cpuPerRequest(ceiling)
  return (
    `bare hop/ceiling req/s ${f(hop.rps / ceiling.rps, 3)}, p50 ${f(hop.latencyMs.p50 / Math.max(ceiling.latencyMs.p50, 0.001), 2)}×; ` +
    `front CPU per call ${f(front / Math.max(ceil, 1e-9), 2)}× the ceiling's (gateway ${f(gw / Math.max(ceil, 1e-9), 2)}×); ` +
    `gateway/bare hop req/s ${f(gateway.rps / hop.rps, 3)}`
  )
}

export function compare(now: RunResult, before: RunResult): string {
  const lines = [`\ncompared with ${before.commit} (${before.when}):`]
  for (const c of now.cases) {
    const b = before.cases.find((x) => x.case === c.case)
    if (b === undefined) continue
    lines.push(
      `${c.case.padEnd(14)} ratio ${f(b.ratio, 3)} → ${f(c.ratio, 3)} (${c.ratio >= b.ratio ? '+' : ''}${f((100 * (c.ratio - b.ratio)) / b.ratio, 1)}%), gateway p99 ${f(b.gateway.latencyMs.p99, 2)} → ${f(c.gateway.latencyMs.p99, 2)} ms`
    )
  }
  return lines.join('\n')
}
