// Runs wrk (C, one thread) against a URL with a POST body and returns its summary as data.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { reaped } from './reap'

/** Installs wrk from Debian when it is missing (scripts/ensure-wrk.sh). */
export function ensureWrk(): void {
  execFileSync(join(__dirname, '..', '..', '..', '..', 'scripts', 'ensure-wrk.sh'), { stdio: 'inherit' })
}

export interface LoadResult {
  requests: number
  durationS: number
  rps: number
  bytes: number
  errors: number
  /** Answers outside 2xx/3xx; counted apart from socket errors. */
  non2xx: number
  latencyMs: { mean: number; p50: number; p90: number; p99: number; p999: number; max: number }
  loadGeneratorPid: number
}

export interface LoadSpec {
  url: string
  headers: Record<string, string>
  body: Buffer
  connections: number
  durationS: number
  threads?: number
  /** CPUs to pin wrk to ("2,3"), through taskset; null or absent: wherever the system puts it. */
  cpus?: string | null
}

function luaString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`
}

/** A Lua script that sends the body and prints the summary as one JSON line when wrk is done. */
function script(spec: LoadSpec, bodyFile: string): string {
  const headers = Object.entries(spec.headers)
    .map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}`)
    .join('\n')
  return `wrk.method = "POST"
${headers}
local f = io.open(${luaString(bodyFile)}, "rb")
wrk.body = f:read("*a")
f:close()
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\nJSON {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"mean":%f,"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d}\\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max))
end
`
}

export function runWrk(spec: LoadSpec, onStart: (pid: number) => void = () => {}): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'wrk-'))
  const bodyFile = join(dir, 'body')
  const scriptFile = join(dir, 'post.lua')
  writeFileSync(bodyFile, spec.body)
  writeFileSync(scriptFile, script(spec, bodyFile))
  return new Promise((resolve, reject) => {
    const args = [
      '-t',
      String(spec.threads ?? 1),
      '-c',
      String(spec.connections),
      '-d',
      `${spec.durationS}s`,
      '--timeout',
      '10s',
      '-s',
      scriptFile,
      spec.url
    ]
    // taskset execs wrk in its own process, so the pid is still wrk's.
    const child = reaped(
      spawn(spec.cpus == null ? 'wrk' : 'taskset', spec.cpus == null ? args : ['-c', spec.cpus, 'wrk', ...args], {
        stdio: ['ignore', 'pipe', 'pipe']
      })
    )
    onStart(child.pid!)
    let out = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
    })
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString()
    })
    child.on('error', reject)
    child.on('exit', (code) => {
      const line = /JSON (\{.*\})/.exec(out)
      if (code !== 0 || line === null) {
        reject(new Error(`wrk failed (${String(code)}): ${out}`))
        return
      }
      const j = JSON.parse(line[1]!) as Record<string, number>
      const us = (k: string): number => j[k]! / 1000
      resolve({
        requests: j.requests!,
        durationS: j.duration_us! / 1e6,
        rps: j.requests! / (j.duration_us! / 1e6),
        bytes: j.bytes!,
        errors: j.connect! + j.read! + j.write! + j.timeout!,
        non2xx: j.status!,
        latencyMs: {
          mean: us('mean'),
          p50: us('p50'),
          p90: us('p90'),
          p99: us('p99'),
          p999: us('p999'),
          max: us('max')
        },
        loadGeneratorPid: child.pid!
      })
    })
  })
}
