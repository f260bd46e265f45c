// The TLS benchmark's loads (wrk, openssl s_time), each subject's cost of them, and the medians of the rounds.
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { RssWatch, sample } from '../harness/procstat'
import { runWrk, type LoadResult } from '../harness/wrk'
import type { ProcessCost } from '../results'
import { runTool } from './tls-servers'
import type { Load, Measured, Running, SubjectName, Summary, TlsCase } from './tls-shapes'

async function wrkLoad(r: Running, c: TlsCase, durationS: number): Promise<Load> {
  const res = await runWrk({
    url: r.url + c.bc.path,
    headers: c.kind === 'resumed' ? { ...c.bc.headers, Connection: 'close' } : c.bc.headers,
    body: c.bc.body,
    connections: c.connections,
    durationS
  })
  return { calls: res.requests, rate: res.rps, latencyMs: res.latencyMs, errors: res.errors, non2xx: res.non2xx }
}

/** Full handshakes: `clients` `openssl s_time -new` in parallel, each a handshake at a time, no request. */
async function sTimeLoad(r: Running, clients: number, durationS: number): Promise<Load> {
  const t0 = performance.now()
  const outs = await Promise.all(
    Array.from({ length: clients }, () =>
      runTool(
        'openssl',
        ['s_time', '-connect', `127.0.0.1:${r.port}`, '-new', '-time', String(durationS)],
        (durationS + 20) * 1000
      )
    )
  )
  const wallS = (performance.now() - t0) / 1000
  let calls = 0
  for (const o of outs) {
    // "2069 connections in 0.84s; 2463.10 connections/user sec, bytes read 0"
    const m = /(\d+) connections in [\d.]+s;/.exec(o.out)
    if (o.code !== 0 || m === null)
      throw new Error(`openssl s_time against ${r.subject} (${r.key}) failed (${String(o.code)}): ${o.out.slice(-500)}`)
    calls += Number(m[1])
  }
  return { calls, rate: calls / wallS, latencyMs: null, errors: 0, non2xx: 0 }
}

export function load(r: Running, c: TlsCase, durationS: number): Promise<Load> {
  return c.kind === 'full' ? sTimeLoad(r, c.connections, durationS) : wrkLoad(r, c, durationS)
}

/** The kernel's count of accepted TCP connections (this network namespace). */
function passiveOpens(): number | null {
  try {
    const lines = readFileSync('/proc/net/snmp', 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('Tcp:'))
    const names = lines[0]?.split(/\s+/) ?? []
    const values = lines[1]?.split(/\s+/) ?? []
    const k = names.indexOf('PassiveOpens')
    return k < 0 || values[k] === undefined ? null : Number(values[k])
  } catch {
    return null
  }
}

export async function measure(r: Running, c: TlsCase, durationS: number): Promise<Measured> {
  const before = r.pids.map(([, pid]) => sample(pid))
  const watch = new RssWatch(r.pids.map(([, pid]) => pid))
  const opens = passiveOpens()
  const t0 = performance.now()
  const l = await load(r, c, durationS)
  const wallS = (performance.now() - t0) / 1000
  const opened = passiveOpens()
  watch.stop()
  const processes = r.pids.map(([name, pid], k): ProcessCost => {
    const after = sample(pid)
    const b = before[k]
    const cpu = after !== null && b != null ? after.cpuMs - b.cpuMs : 0
    const system = after !== null && b != null ? after.systemMs - b.systemMs : 0
    const rss = watch.series.get(pid) ?? []
    return {
      name,
      pid,
      cpuMsPerRequest: l.calls > 0 ? cpu / l.calls : 0,
      systemShare: cpu > 0 ? system / cpu : 0,
      cpuPercent: (100 * cpu) / 1000 / wallS,
      rssMb: (rss.length > 0 ? Math.max(...rss) : (after?.rssBytes ?? 0)) / 2 ** 20
    }
  })
  return {
    ...l,
    subject: r.subject,
    processes,
    cpuMsPerCall: processes.reduce((n, p) => n + p.cpuMsPerRequest, 0),
    connectionsPerCall: opens === null || opened === null || l.calls === 0 ? null : (opened - opens) / l.calls
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

export function summarize(subject: SubjectName, runs: Measured[]): Summary | null {
  if (runs.length === 0) return null
  const byRate = [...runs].sort((a, b) => a.rate - b.rate)[Math.floor(runs.length / 2)]!
  const lat = runs.map((m) => m.latencyMs).filter((x): x is LoadResult['latencyMs'] => x !== null)
  const conns = runs.map((m) => m.connectionsPerCall).filter((x): x is number => x !== null)
  return {
    subject,
    runs: runs.length,
    rate: median(runs.map((m) => m.rate)),
    p50Ms: lat.length === 0 ? null : median(lat.map((x) => x.p50)),
    p99Ms: lat.length === 0 ? null : median(lat.map((x) => x.p99)),
    cpuMsPerCall: median(runs.map((m) => m.cpuMsPerCall)),
    connectionsPerCall: conns.length === 0 ? null : median(conns),
    errors: runs.reduce((n, m) => n + m.errors, 0),
    non2xx: runs.reduce((n, m) => n + m.non2xx, 0),
    processes: byRate.processes
  }
}
