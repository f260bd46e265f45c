// `microservice bench --save / --baseline`: the same build passes against its own saved run, and the
// same code deployed with its method slowed by a setting (benchkit's tuning.json) fails, as a CI
// regression check would. Both runs measure a bare reference server in alternating rounds.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { XMLParser } from 'fast-xml-parser'
import { startDeployPlatform, cli, packCopy, editedCopy, type DeployPlatform } from '../../helpers/processes/deploy'
import { resultErrors } from '../../../src/cli/bench/baseline'
import type { BenchResult } from '../../../src/cli/bench/bench-result'
import { zipDirectory } from '../../../src/platform/package/zip'

const work = mkdtempSync(join(tmpdir(), 'bench-baseline-'))
const BENCHKIT_DIR = join(__dirname, '..', '..', 'fixtures', 'benchkit')

describe('a saved run as the baseline', () => {
  let d: DeployPlatform
  const base = join(work, 'base.json')
  // One connection: every call costs the same system calls, so CPU per call is steady (as in the
  // project's own gate); short rounds alternate with the reference's.
  const args = ['benchkit/calc/add', '-c', '1', '-d', '3s', '--rounds', '6', '-w', '500ms', '-q']
  const bench = (...more: string[]) => cli(d.configFile, 'bench', ...args, ...more)
  const read = (file: string): BenchResult => {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'))
    assert.deepEqual(resultErrors(value), [])
    return value as BenchResult
  }

  before(async () => {
    d = await startDeployPlatform()
    const up = await cli(d.configFile, 'upload', await packCopy(BENCHKIT_DIR, work))
    assert.equal(up.code, 0, up.stderr)
  })
  after(() => d.stop())

  test('--save writes a run with the reference measured in every round', async () => {
    const r = await bench('--save', base)
    assert.equal(r.code, 0, r.stdout + r.stderr)
    const saved = read(base)
    const run = saved.runs[0]!
    assert.equal(saved.settings.reference, true)
    assert.equal(run.reference!.rounds.length, 6)
    assert.ok(run.reference!.cpuRatio! > 0, 'CPU per call against the reference, the platform being local')
    assert.ok(run.cpuUsPerCall! > 0, "the platform's CPU per call, which the slowed copy scales by")
    assert.match(r.stdout, /CPU µs\/call +ref req\/s +req\/s of ref +CPU × ref/)
  })

  test('the same build passes against its own baseline, three times', async () => {
    for (let k = 0; k < 3; k++) {
      const file = join(work, `same-${k}.json`)
      // A wider tolerance than the default: this test must not fail on a busy CI machine; the note
      // gives the spread measured with the default.
      const r = await bench('--baseline', base, '--tolerance', '30', '--json', file)
      const result = read(file)
      const cmp = result.comparison!
      assert.equal(r.code, 0, r.stdout)
      assert.equal(cmp.runs[0]!.measure, 'cpu')
      assert.equal(cmp.regressed, false)
      assert.match(
        r.stdout,
        /against .*base\.json at 1 connection: CPU per call [\d.]+× the reference's, baseline [\d.]+×: [+-][\d.]+ % speed \(within 30 %\)/
      )
    }
  })

  test('the method slowed by a setting fails the comparison: exit 1, a JUnit failure', async () => {
    // The same code as a newer version whose tuning.json makes each call compute four times what a
    // call cost in the saved run (at least 1 ms): a fixed 1 ms was only 2x a call's CPU on a
    // virtual machine where every wake-up is a host exit (docs/operating.md, "Idle cores on a
    // virtual machine"), so the slowdown must scale with the machine's own cost of a call.
    const baseUs = read(base).runs[0]!.cpuUsPerCall!
    const spinUs = Math.ceil(Math.max(1000, 4 * baseUs))
    const slowed = editedCopy(BENCHKIT_DIR, work, (config) => (config.version = '0.0.2'))
    writeFileSync(join(slowed, 'tuning.json'), JSON.stringify({ spinUs }))
    const zip = join(work, 'benchkit-0.0.2.zip')
    await zipDirectory(slowed, 'benchkit', zip)
    const up = await cli(d.configFile, 'upload', zip)
    assert.equal(up.code, 0, up.stderr)
    const file = join(work, 'slowed.json')
    const junit = join(work, 'slowed.xml')
    const r = await bench('--baseline', base, '--tolerance', '30', '--json', file, '--junit', junit)
    assert.equal(r.code, 1, r.stdout)
    const cmp = read(file).comparison!
    assert.equal(cmp.regressed, true)
    // Four times a call's cost added reads as -80 %; -50 % leaves room for a noisy round.
    assert.ok(
      cmp.runs[0]!.changePercent < -50,
      `${cmp.runs[0]!.changePercent} %, a call ${baseUs} µs, spin ${spinUs} µs`
    )
    assert.match(r.stdout, /FAILED: at 1 connection -[\d.]+ % against .*base\.json \(tolerance 30 %\)/)
    const suite = (
      new XMLParser({ ignoreAttributes: false }).parse(readFileSync(junit, 'utf8')) as {
        testsuite: { '@_failures': string; testcase: { failure: { '@_message': string } } }
      }
    ).testsuite
    assert.equal(suite['@_failures'], '1')
    assert.match(suite.testcase.failure['@_message'], /against the baseline \(tolerance 30 %\)/)
  })
})
