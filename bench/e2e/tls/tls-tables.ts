// The TLS benchmark's text report: what was negotiated and resumed, each case's table, the targets.
import { KEY_TITLE, type Summary, type Target, type TlsCaseResult, type TlsRun } from './tls-shapes'

const f = (x: number | null, d = 0): string => (x === null ? '-' : x.toFixed(d))

export function targets(cases: TlsCaseResult[]): Target[] {
  const out: Target[] = []
  const of = (id: string): TlsCaseResult | undefined => cases.find((c) => c.id === id)
  const c64 = of('keepalive-c64')
  if (c64 !== undefined)
    out.push({
      what: 'keep-alive small calls c=64: gateway req/s ≥ nginx req/s',
      case: c64.id,
      gateway: c64.gateway?.rate ?? null,
      nginx: c64.nginx?.rate ?? null,
      ratio: c64.rateRatio,
      needed: '≥ 1.00',
      met: c64.rateRatio === null ? null : c64.rateRatio >= 1,
      cpuRatio: c64.cpuRatio
    })
  const c1 = of('keepalive-c1')
  if (c1 !== undefined)
    out.push({
      what: 'keep-alive small calls c=1: gateway p50 within 1.3× nginx p50',
      case: c1.id,
      gateway: c1.gateway?.p50Ms ?? null,
      nginx: c1.nginx?.p50Ms ?? null,
      ratio: c1.p50Ratio,
      needed: '≤ 1.30',
      met: c1.p50Ratio === null ? null : c1.p50Ratio <= 1.3,
      cpuRatio: c1.cpuRatio
    })
  for (const id of ['full-rsa', 'full-ecdsa', 'resumed-rsa', 'resumed-ecdsa']) {
    const c = of(id)
    if (c === undefined) continue
    out.push({
      what: `${c.kind === 'full' ? 'full' : 'resumed (wrk)'} handshakes/s, ${KEY_TITLE[c.key]}: gateway ≥ 0.8× nginx`,
      case: c.id,
      gateway: c.gateway?.rate ?? null,
      nginx: c.nginx?.rate ?? null,
      ratio: c.rateRatio,
      needed: '≥ 0.80',
      met: c.rateRatio === null ? null : c.rateRatio >= 0.8,
      cpuRatio: c.cpuRatio
    })
  }
  return out
}

export function report(r: TlsRun): string {
  const lines: string[] = []
  lines.push(
    `TLS: gateway (1 listener thread, 1 microservice instance) beside nginx (1 worker) in front of the bare uWS server; ${r.rounds} round${r.rounds > 1 ? 's' : ''} of ${r.durationS} s, alternating; medians of the rounds; ${r.cpus} cores`
  )
  lines.push(
    Object.entries(r.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join('; ')
  )
  lines.push('\nNegotiated (openssl s_client with OpenSSL defaults, as wrk offers them):')
  for (const n of r.negotiated)
    lines.push(
      `  ${n.subject.padEnd(7)} ${KEY_TITLE[n.key].padEnd(11)} ${n.protocol ?? '?'} ${n.ciphersuite ?? '?'}, group ${n.group ?? '?'}, signature ${n.signature ?? '?'}`
    )
  for (const [key, suites] of Object.entries(r.nginxCiphersuites))
    lines.push(
      `  nginx ${key}: ${suites === null ? "TLS 1.3 suites: OpenSSL's defaults (no gateway to match)" : `ssl_conf_command Ciphersuites ${suites} (the gateway's)`}`
    )
  const mismatch = (['rsa', 'ecdsa'] as const).filter((k) => {
    const g = r.negotiated.find((n) => n.subject === 'gateway' && n.key === k)
    const x = r.negotiated.find((n) => n.subject === 'nginx' && n.key === k)
    return g !== undefined && x !== undefined && (g.ciphersuite !== x.ciphersuite || g.protocol !== x.protocol)
  })
  if (mismatch.length > 0) lines.push(`  WARNING: the subjects negotiate differently with ${mismatch.join(', ')}`)
  lines.push('\nSession resumption (openssl s_client -sess_out, then -sess_in):')
  for (const s of r.resumption)
    lines.push(
      `  ${s.subject.padEnd(7)} ${KEY_TITLE[s.key].padEnd(11)} ${s.resumed ? 'resumed' : 'NOT resumed'} (${s.first ?? '?'} → ${s.second ?? '?'}; answers ${s.statuses.map((x) => x ?? '?').join(', ')})`
    )
  for (const w of r.wrkResumption)
    lines.push(
      `  wrk, Connection: close, against nginx ${KEY_TITLE[w.key]}: ${w.resumed} of ${w.handshakes} handshakes resumed ($ssl_session_reused)`
    )
  for (const c of r.cases) {
    const unit = c.kind === 'full' || c.kind === 'resumed' ? 'handshakes/s' : 'req/s'
    const load =
      c.kind === 'full'
        ? `${c.connections} openssl s_time -new clients`
        : `wrk c=${c.connections}${c.kind === 'resumed' ? ', Connection: close' : ''}`
    lines.push(`\n${c.title} (${c.id}), ${KEY_TITLE[c.key]}, ${load}`)
    lines.push(
      `subject | ${unit.padStart(12)} | p50 ms | p99 ms | errors | non-2xx | conn/call | CPU ms/call | per process (ms/call; kernel's share, max RSS MB)`
    )
    for (const s of [c.gateway, c.nginx]) {
      if (s === null) continue
      const per = s.processes
        .map((p) => `${p.name} ${p.cpuMsPerRequest.toFixed(4)} (sys ${f(100 * p.systemShare)} %, ${f(p.rssMb)} MB)`)
        .join(', ')
      lines.push(
        `${s.subject.padEnd(7)} | ${f(s.rate).padStart(12)} | ${f(s.p50Ms, 3).padStart(6)} | ${f(s.p99Ms, 2).padStart(6)} | ${String(s.errors).padStart(6)} | ${String(s.non2xx).padStart(7)} | ${f(s.connectionsPerCall, 2).padStart(9)} | ${f(s.cpuMsPerCall, 4).padStart(11)} | ${per}`
      )
    }
    if (c.rateRatio !== null)
      lines.push(
        `gateway/nginx: ${unit} ${f(c.rateRatio, 2)}${c.p50Ratio === null ? '' : `, p50 ${f(c.p50Ratio, 2)}×`}, CPU per call ${f(c.cpuRatio, 2)}×`
      )
    if (c.kind === 'full' || c.kind === 'resumed') {
      // The clients run on the same cores: the rate is partly theirs. A subject's own CPU per handshake
      // says how many it would make on a core of its own.
      const perCore = [c.gateway, c.nginx]
        .filter((s): s is Summary => s !== null && s.cpuMsPerCall > 0)
        .map((s) => `${s.subject} ${f(1000 / s.cpuMsPerCall)}`)
      if (perCore.length > 0)
        lines.push(
          `${c.kind === 'full' ? 'handshakes' : 'calls (a handshake each)'} per second of server CPU: ${perCore.join(', ')}`
        )
    }
    if (c.kind === 'resumed')
      lines.push("  (wrk's latency starts once a connection is up: p50 and p99 leave the handshake out)")
    if (c.kind === 'resumed' && (c.gateway?.errors ?? 0) > 0)
      lines.push(
        '  (uWS closes a `Connection: close` call without saying so in its answer: wrk counts each close as a read error)'
      )
  }
  if (r.targets.length > 0) {
    lines.push('\nTargets')
    lines.push(
      'target                                                          |  gateway |    nginx | ratio | needed | met | CPU/call gateway/nginx'
    )
    for (const t of r.targets) {
      const d = t.case === 'keepalive-c1' ? 3 : 0
      lines.push(
        `${t.what.padEnd(63)} | ${f(t.gateway, d).padStart(8)} | ${f(t.nginx, d).padStart(8)} | ${f(t.ratio, 2).padStart(5)} | ${t.needed.padStart(6)} | ${(t.met === null ? 'n/a' : t.met ? 'yes' : 'NO').padEnd(3)} | ${t.cpuRatio === null ? '-' : `${f(t.cpuRatio, 2)}×`}`
      )
    }
  }
  return lines.join('\n')
}
