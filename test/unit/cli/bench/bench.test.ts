// The parts of `microservice bench` that numbers depend on: the latency histogram against exact
// quantiles, the comparison's direction for each measure, times as users write them, the rounds'
// spread, the progress line, and the TLS a plan speaks (the URL's scheme, SNI).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { LatencyHistogram } from '../../../../src/cli/bench/histogram'
import { compare, spreadPercent } from '../../../../src/cli/bench/baseline'
import { parseTime, planBench, type PlatformSources } from '../../../../src/cli/bench/bench-plan'
import type { PlatformAbout } from '../../../../src/platform/control'
import { progressLine } from '../../../../src/cli/bench/bench-rounds'
import type { BenchResult, ReferenceRound, RunResult } from '../../../../src/cli/bench/bench-result'

describe('latency histogram', () => {
  test('quantiles within 1.6 % of the exact ones over six decades; the max exact; buckets ascending', () => {
    const h = new LatencyHistogram()
    const values: number[] = []
    let seed = 7
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (let k = 0; k < 50000; k++) {
      const ns = Math.round(Math.exp(random() * 14) * 200) // 200 ns to ~240 ms
      values.push(ns)
      h.record(ns)
    }
    values.sort((a, b) => a - b)
    for (const q of [0.5, 0.9, 0.99, 0.999]) {
      const exact = values[Math.ceil(q * values.length) - 1]!
      const got = h.quantileNs(q)
      assert.ok(Math.abs(got - exact) / exact < 0.016, `q${q}: ${got} against ${exact}`)
    }
    assert.equal(h.maxNs, values.at(-1))
    assert.equal(h.count, 50000)
    const buckets = h.buckets()
    assert.equal(
      buckets.reduce((t, [, n]) => t + n, 0),
      50000
    )
    for (let k = 1; k < buckets.length; k++) assert.ok(buckets[k]![0] > buckets[k - 1]![0])
  })

  test('add() merges two histograms as one that saw both', () => {
    const a = new LatencyHistogram()
    const b = new LatencyHistogram()
    const both = new LatencyHistogram()
    for (let k = 1; k <= 1000; k++) {
      ;(k % 2 === 0 ? a : b).record(k * 1000)
      both.record(k * 1000)
    }
    a.add(b)
    assert.deepEqual(a.buckets(), both.buckets())
    assert.equal(a.quantileNs(0.99), both.quantileNs(0.99))
    assert.equal(a.meanNs(), both.meanNs())
  })
})

function run(connections: number, ratio: number, cpuRatio: number | null): RunResult {
  return { connections, reference: { rps: 1, ratio, cpuRatio, rounds: [] } } as unknown as RunResult
}
const result = (...runs: RunResult[]) => ({ runs }) as unknown as BenchResult

describe('comparison with a baseline', () => {
  test('CPU per call when both runs measured it: more CPU than the baseline is slower', () => {
    const c = compare(result(run(1, 0.5, 4)), result(run(1, 0.5, 5)), 'b.json', 15)
    assert.equal(c.runs[0]!.measure, 'cpu')
    assert.ok(Math.abs(c.runs[0]!.changePercent + 20) < 1e-9)
    assert.equal(c.regressed, true)
    assert.equal(compare(result(run(1, 0.5, 4)), result(run(1, 0.5, 4.4)), 'b.json', 15).regressed, false)
  })

  test('req/s against the reference otherwise: fewer is slower', () => {
    const c = compare(result(run(8, 0.5, null)), result(run(8, 0.4, 3)), 'b.json', 15)
    assert.equal(c.runs[0]!.measure, 'throughput')
    assert.ok(Math.abs(c.runs[0]!.changePercent + 20) < 1e-9)
    assert.equal(c.regressed, true)
    assert.equal(compare(result(run(8, 0.5, null)), result(run(8, 0.6, null)), 'b.json', 15).regressed, false)
  })

  test('a concurrency the baseline lacks is refused, not passed', () => {
    assert.throws(
      () => compare(result(run(1, 0.5, 4)), result(run(64, 0.5, 4)), 'b.json', 15),
      /no run at 64 connections/
    )
  })

  test("the rounds' spread: the median distance from the median, in percent", () => {
    const rounds = [1, 1.1, 0.9, 1.05, 0.95].map((x) => ({ ratio: x, cpuRatio: null }) as unknown as ReferenceRound)
    assert.ok(Math.abs(spreadPercent(rounds)! - 5) < 1e-9)
    assert.equal(spreadPercent(rounds.slice(0, 2)), null)
  })
})

test('times as wrk, k6 and autocannon users write them', () => {
  assert.equal(parseTime('10s', 'd'), 10000)
  assert.equal(parseTime('500ms', 'd'), 500)
  assert.equal(parseTime('2m', 'd'), 120000)
  assert.equal(parseTime('1.5', 'd'), 1500)
  assert.throws(
    () => parseTime('10 seconds', '--duration'),
    /--duration '10 seconds' is not a time like 10s, 500ms or 2m/
  )
})

test('the progress line rewrites itself: elapsed of total, req/s, p99', () => {
  const written: string[] = []
  const write = process.stderr.write
  process.stderr.write = ((s: string) => written.push(s) > 0) as typeof process.stderr.write
  try {
    progressLine('8 connections')!({ elapsedMs: 2500, totalMs: 10000, done: 5000, rps: 2000.4, p99Ms: 1.234 })
    progressLine('1 connection')!({ elapsedMs: 100, totalMs: null, done: 42, rps: 420, p99Ms: 0.5 })
  } finally {
    process.stderr.write = write
  }
  assert.deepEqual(written, [
    '\r\x1b[K8 connections  2.5 s / 10 s  2,000 req/s  p99 1.23 ms',
    '\r\x1b[K1 connection  42 answers  420 req/s  p99 0.50 ms'
  ])
})

describe('the plan over TLS', () => {
  const sources = (about: PlatformAbout | null): PlatformSources => ({
    about: () => Promise.resolve(about),
    packageDir: () => Promise.resolve(null),
    instancePids: () => Promise.resolve([])
  })
  const plan = (about: PlatformAbout | null, ...args: string[]) =>
    planBench(['a/b/c', '-b', '{}', '-q', ...args], sources(about))

  test("SNI: the URL's host when it is a name, none for an IP address unless --servername names one", async () => {
    const tlsOf = async (...args: string[]) => (await plan(null, ...args)).tls
    assert.deepEqual(await tlsOf('--url', 'https://gateway.example:8443', '--insecure'), {
      ca: null,
      caFile: null,
      insecure: true,
      servername: 'gateway.example',
      client: null
    })
    assert.equal((await tlsOf('--url', 'https://127.0.0.1:8443'))!.servername, null)
    assert.equal((await tlsOf('--url', 'https://[::1]:8443'))!.servername, null)
    assert.equal((await tlsOf('--url', 'https://127.0.0.1:8443', '--servername', 'gw.test'))!.servername, 'gw.test')
    assert.equal(await tlsOf('--url', 'http://127.0.0.1:8082'), null)
  })

  test("the default URL follows the platform: https:// when its gateway's or edge's listener has TLS", async () => {
    const about = (tls: boolean | undefined): PlatformAbout => ({
      pid: process.pid,
      gateway: { host: '0.0.0.0', port: 9100, ...(tls === undefined ? {} : { tls }) },
      edge: { host: '0.0.0.0', port: 9101, ...(tls === undefined ? {} : { tls }) }
    })
    assert.equal((await plan(about(true))).url.href, 'https://127.0.0.1:9100/a/b/c')
    assert.equal((await plan(about(true), '--edge')).url.protocol, 'https:')
    assert.equal((await plan(about(false))).url.href, 'http://127.0.0.1:9100/a/b/c')
    // A platform older than the field: plain HTTP, as before.
    assert.equal((await plan(about(undefined))).tls, null)
  })
})
