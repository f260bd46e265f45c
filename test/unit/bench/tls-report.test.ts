// The TLS benchmark's text report: each process's CPU a call says the kernel's share of it, as bench:e2e's does.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Summary, TlsRun } from '../../../bench/e2e/tls/tls-shapes'
import { report } from '../../../bench/e2e/tls/tls-tables'

function summary(subject: Summary['subject'], rate: number): Summary {
  return {
    subject,
    runs: 1,
    rate,
    p50Ms: 0.2,
    p99Ms: 0.5,
    cpuMsPerCall: 0.03,
    connectionsPerCall: 0,
    errors: 0,
    non2xx: 0,
    processes: [
      { name: subject, pid: 1, cpuMsPerRequest: 0.02, systemShare: 0.625, cpuPercent: 90, rssMb: 60 },
      { name: 'upstream', pid: 2, cpuMsPerRequest: 0.01, systemShare: 0.25, cpuPercent: 40, rssMb: 40 }
    ]
  }
}

const run: TlsRun = {
  when: '2026-11-29T00:00:00Z',
  commit: 'test',
  durationS: 1,
  rounds: 1,
  warmupS: 0,
  cpus: 2,
  versions: {},
  keepAliveKey: 'ecdsa',
  nginxCiphersuites: {},
  negotiated: [],
  resumption: [],
  wrkResumption: [],
  cases: [
    {
      id: 'keepalive-c64',
      title: 'keep-alive small calls',
      kind: 'keepalive',
      key: 'ecdsa',
      connections: 64,
      gateway: summary('gateway', 40000),
      nginx: summary('nginx', 30000),
      rateRatio: 4 / 3,
      p50Ratio: 1,
      cpuRatio: 1,
      rounds: []
    }
  ],
  targets: []
}

test("each process's CPU a call names the kernel's share and the largest RSS", () => {
  const text = report(run)
  assert.match(text, /\| gateway 0\.0200 \(sys 63 %, 60 MB\), upstream 0\.0100 \(sys 25 %, 40 MB\)$/m)
  assert.match(text, /\| nginx 0\.0200 \(sys 63 %, 60 MB\), upstream 0\.0100 \(sys 25 %, 40 MB\)$/m)
})
