// `microservice bench`, the real command against a running platform: the body from the method's
// example or given, modes, sequences and headers, durations, counts and a constant rate, every report
// (JSON held to its schema, Markdown, JUnit, HTML), answers checked, usage mistakes.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createServer as createRawServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { XMLParser } from 'fast-xml-parser'
import { startDeployPlatform, cli, deployExample, type DeployPlatform } from '../../helpers/processes/deploy'
import { EXAMPLE_DIR } from '../../helpers/platform'
import { resultErrors } from '../../../src/cli/bench/baseline'
import { RESULT_SCHEMA, type BenchResult } from '../../../src/cli/bench/bench-result'
import { ROOT } from '../../helpers/root'

const work = mkdtempSync(join(tmpdir(), 'bench-cmd-'))
/** Fifty calls on one connection, no warm-up, no progress line. */
const FIFTY = ['-n', '50', '-c', '1', '-w', '0', '-q']

describe('microservice bench', () => {
  let d: DeployPlatform
  const bench = (...args: string[]) => cli(d.configFile, 'bench', ...args)
  const read = (file: string): BenchResult => {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'))
    assert.deepEqual(resultErrors(value), [], 'the JSON fits its schema')
    return value as BenchResult
  }

  before(async () => {
    d = await startDeployPlatform()
    await deployExample(d, work)
  })
  after(() => d.stop())

  test("the method's example as the body, two concurrencies, every report", async () => {
    const out = (name: string) => join(work, name)
    // As a GitHub Actions step has it: the Markdown is appended to the job's summary too.
    writeFileSync(out('summary.md'), '# earlier steps\n')
    process.env.GITHUB_STEP_SUMMARY = out('summary.md')
    const r = await bench(
      'example/calculator/multiply',
      ...['-c', '1,4', '-d', '1s', '-w', '200ms', '-q'],
      ...['--json', out('r.json'), '--markdown', out('r.md'), '--junit', out('r.xml'), '--html', out('r.html')]
    ).finally(() => delete process.env.GITHUB_STEP_SUMMARY)
    assert.equal(r.code, 0, r.stdout + r.stderr)
    const result = read(out('r.json'))
    assert.equal(result.ok, true)
    assert.equal(result.target.bodySource, 'example')
    assert.equal(result.target.bodyBytes, Buffer.byteLength('{"a":6,"b":7}'))
    assert.equal(result.target.url, `${d.url}/example/calculator/multiply`)
    assert.deepEqual(
      result.runs.map((run) => run.connections),
      [1, 4]
    )
    for (const run of result.runs) {
      assert.ok(run.requests > 50, `${run.requests} answers`)
      assert.equal(run.errors.total, 0)
      assert.deepEqual(run.errors.byStatus, { '200': run.requests })
      assert.equal(
        run.histogram.reduce((t, [, n]) => t + n, 0),
        run.requests,
        'every answer is in the distribution'
      )
      assert.ok(run.latencyMs.p50 <= run.latencyMs.p99 && run.latencyMs.p99 <= run.latencyMs.max)
      assert.equal(run.bytes.received % run.requests, 0, 'every answer the same size')
      assert.ok(run.cpuUsPerCall !== null && run.cpuUsPerCall > 0, 'the local platform CPU per call')
      assert.equal(run.reference, null)
    }
    // The table, as printed.
    assert.match(r.stdout, /^microservice bench example\/calculator\/multiply → http:\/\/127\.0\.0\.1:\d+\//)
    assert.match(r.stdout, /13 bytes \(the method's example\); 1 s per concurrency after a 0\.2 s warm-up/)
    assert.match(r.stdout, /\n *conns +req\/s +p50 ms +p90 ms +p99 ms +p99\.9 ms +max ms +answers +errors/)
    assert.match(r.stdout, /\npassed$/m)
    const md = readFileSync(out('r.md'), 'utf8')
    assert.match(md, /^### ✅ microservice bench example\/calculator\/multiply/)
    assert.equal(readFileSync(out('summary.md'), 'utf8'), `# earlier steps\n${md}`)
    assert.equal(md.split('\n').filter((line) => /^\| (1|4) \| [\d,]+ \|/.test(line)).length, 2)
    const junit = new XMLParser({ ignoreAttributes: false }).parse(readFileSync(out('r.xml'), 'utf8')) as {
      testsuite: { '@_tests': string; '@_failures': string; testcase: Array<{ '@_name': string }> }
    }
    assert.equal(junit.testsuite['@_tests'], '2')
    assert.equal(junit.testsuite['@_failures'], '0')
    assert.equal(junit.testsuite.testcase[1]!['@_name'], 'example/calculator/multiply at 4 connections')
    const html = readFileSync(out('r.html'), 'utf8')
    assert.equal(html.match(/<polyline /g)?.length, 2, 'one latency line per concurrency')
  })

  test('docs/bench-result.schema.json is the schema the command checks with', () => {
    const file = JSON.parse(readFileSync(join(ROOT, 'docs', 'bench-result.schema.json'), 'utf8')) as unknown
    assert.deepEqual(file, JSON.parse(JSON.stringify(RESULT_SCHEMA)))
  })

  test('RMC in alpha XML with a given body and a request count', async () => {
    const file = join(work, 'rmc.json')
    const r = await bench(
      'example/calculator/multiplyInts',
      ...['--mode', 'RMC', '--sequence', 'alphaParamArrayXmlInOutSequence'],
      ...['-b', '<paramArray><int>2</int><int>3</int></paramArray>', '-n', '300', '-c', '3', '-w', '0', '-q'],
      ...['--json', file]
    )
    assert.equal(r.code, 0, r.stdout + r.stderr)
    const result = read(file)
    assert.equal(result.target.contentType, 'application/xml')
    assert.deepEqual(result.target.headers, {
      'X-PLATFORM-API-ID': 'RMC',
      'X-PLATFORM-Sequence-Name': 'alphaParamArrayXmlInOutSequence'
    })
    assert.equal(result.runs[0]!.requests, 300, 'exactly the count asked for')
    assert.equal(result.settings.durationMs, null)
    assert.match(r.stdout, /300 answers per concurrency without a warm-up/)
  })

  test('a body from a file, through the edge', async () => {
    const body = join(work, 'in.json')
    writeFileSync(body, '{"a":20,"b":3}')
    const file = join(work, 'edge.json')
    const r = await bench('example/calculator/multiplyToInt', '--edge', '-b', `@${body}`, ...FIFTY, '--json', file)
    assert.equal(r.code, 0, r.stdout + r.stderr)
    const result = read(file)
    assert.equal(
      result.target.url,
      `http://127.0.0.1:${d.platform.edgePort}/_eapi/ELASTIC_HTTP/example/calculator/multiplyToInt`
    )
    assert.equal(result.target.bodySource, 'file')
    assert.equal(result.runs[0]!.bytes.received > 0, true)
  })

  test('error answers fail the run, counted by status and code; --allow-errors reports them only', async () => {
    const file = join(work, 'errors.json')
    const r = await bench('example/calculator/nope', '-b', '{}', '-n', '40', '-c', '2', '-w', '0', '-q', '--json', file)
    assert.equal(r.code, 1)
    const result = read(file)
    assert.equal(result.ok, false)
    assert.deepEqual(result.runs[0]!.errors.byStatus, { '404': 40 })
    assert.deepEqual(result.runs[0]!.errors.byCode, { UNKNOWN_METHOD: 40 })
    assert.match(r.stdout, /errors at 2 connections: 404 ×40, UNKNOWN_METHOD ×40/)
    assert.match(r.stdout, /FAILED: 40 of 40 calls at 2 connections failed or differed from the first answer/)
    const allowed = await bench(
      'example/calculator/nope',
      '-b',
      '{}',
      '-n',
      '10',
      '-c',
      '1',
      '-w',
      '0',
      '-q',
      '--allow-errors'
    )
    assert.equal(allowed.code, 0, allowed.stdout)
    assert.match(allowed.stdout, /errors at 1 connection: 404 ×10/)
  })

  test('answers that differ from the first fail the run unless --any-answer; a fixed header makes them equal', async () => {
    const args = ['example/diagnostics/context', '--mode', 'RMC', '-b', '[]', '-n', '30', '-c', '1', '-w', '0', '-q']
    const differing = await bench(...args)
    assert.equal(differing.code, 1)
    assert.match(differing.stdout, /answers unlike the first ×29/)
    assert.match(differing.stdout, /warning: an answer that differed: \{"locale":null,.*"requestId":"/)
    assert.equal((await bench(...args, '--any-answer')).code, 0)
    // The request id is the only part that changes: fixed by a header, every answer is the same.
    const fixed = await bench(...args, '-H', 'X-PLATFORM-Request-ID: bench-1')
    assert.equal(fixed.code, 0, fixed.stdout)
  })

  test('--rate sends on a schedule and times each call from when it was due', async () => {
    const file = join(work, 'rate.json')
    const r = await bench(
      'example/calculator/multiply',
      '-R',
      '400',
      '-d',
      '1s',
      '-c',
      '4',
      '-w',
      '0',
      '-q',
      '--json',
      file
    )
    assert.equal(r.code, 0, r.stdout)
    const run = read(file).runs[0]!
    assert.equal(run.requests + run.errors.unsent, 400, '400 a second for a second')
    assert.ok(run.durationMs >= 990, `${run.durationMs} ms`)
    assert.match(r.stdout, /open loop at 400 req\/s \(timed from when each was due\)/)
  })

  test('usage mistakes exit 2 and say what is wrong', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['example/calculator/multiply', '-d', '1s', '-n', '5'], /--duration and --requests both say when to stop/],
      [['example/calculator'], /'example\/calculator' is not a route: microservice\/service\/method/],
      [['example/calculator/multiply', '-c', '0'], /--connections '0' is not a whole number above 0/],
      [['example/calculator/multiply', '-d', 'soon'], /--duration 'soon' is not a time like 10s, 500ms or 2m/],
      [['example/calculator/multiply', '--mode', 'REST'], /--mode 'REST' is neither ROA nor RMC/],
      [
        ['example/calculator/multiply', '--baseline', join(work, 'none.json')],
        /no such file \(write one with --save\)/
      ],
      [['example/calculator/multiplyInts', '--mode', 'RMC'], /an RMC call needs --body/]
    ]
    for (const [args, said] of cases) {
      const r = await bench(...args)
      assert.equal(r.code, 2, args.join(' '))
      assert.match(r.stderr, said)
    }
    const help = await cli(d.configFile, 'bench', '--help')
    assert.equal(help.code, 0)
    assert.match(help.stdout, /^usage: microservice bench <microservice\/service\/method> \[options\]/)
  })
})

/** An HTTP server of the test's own whose answers misbehave as some servers do. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

describe('microservice bench against servers that misbehave', () => {
  let d: DeployPlatform
  before(async () => {
    d = await startDeployPlatform()
  })
  after(() => d.stop())
  const bench = (url: string, file: string, ...args: string[]) =>
    cli(d.configFile, 'bench', 'a/b/c', '--url', url, '-b', '{}', '-w', '0', '-q', '--json', file, ...args)
  /** `count` calls on two connections, every one answered without an error. */
  async function allAnswered(url: string, name: string, count: number): Promise<void> {
    const file = join(work, name)
    const r = await bench(url, file, '-n', String(count), '-c', '2')
    assert.equal(r.code, 0, r.stdout)
    const run = (JSON.parse(readFileSync(file, 'utf8')) as BenchResult).runs[0]!
    assert.equal(run.requests, count)
    assert.equal(run.errors.total, 0)
  }

  test('a count is reached when some calls are cut off: the run ends at once, the cut calls counted', async () => {
    let n = 0
    const { url, server } = await serve((req, res) => {
      req.resume()
      req.on('end', () => (++n % 3 === 0 ? req.socket.destroy() : res.end('{"ok":true}')))
    })
    try {
      const file = join(work, 'cut.json')
      const started = Date.now()
      const r = await bench(url, file, '-n', '30', '-c', '2')
      assert.equal(r.code, 1, r.stdout)
      const run = (JSON.parse(readFileSync(file, 'utf8')) as BenchResult).runs[0]!
      assert.equal(run.requests + run.errors.transport, 30, JSON.stringify(run.errors))
      assert.equal(run.errors.transport, 10)
      assert.ok(Date.now() - started < 30000, 'not held until a cap')
    } finally {
      server.close()
    }
  })

  test('answers with Connection: close, and chunked answers, are read and counted as any other', async () => {
    let n = 0
    const { url, server } = await serve((req, res) => {
      req.resume()
      req.on('end', () => {
        if (++n % 2 === 0) res.setHeader('Connection', 'close')
        else res.setHeader('Transfer-Encoding', 'chunked')
        res.write('{"ok":')
        res.end('true}')
      })
    })
    try {
      await allAnswered(url, 'close.json', 40)
    } finally {
      server.close()
    }
  })

  test('an answer whose body ends with the connection is an answer, not a failure', async () => {
    // An HTTP/1.0-style server: no length, no chunks, the close ends the body.
    const server = createRawServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"ok":true}'))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      await allAnswered(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'until-close.json', 20)
    } finally {
      server.close()
    }
  })

  test('a count with --reference measures the reference to the same count', async () => {
    const { url, server } = await serve((req, res) => {
      req.resume()
      req.on('end', () => res.end('{"ok":true}'))
    })
    try {
      const file = join(work, 'ref-count.json')
      const started = Date.now()
      const r = await bench(url, file, '-n', '200', '-c', '2', '--reference')
      assert.equal(r.code, 0, r.stdout + r.stderr)
      const run = (JSON.parse(readFileSync(file, 'utf8')) as BenchResult).runs[0]!
      assert.equal(run.reference!.rounds.length, 1)
      assert.equal(run.cpuUsPerCall, null, 'another server than this platform: no CPU per call')
      assert.ok(Date.now() - started < 30000)
    } finally {
      server.close()
    }
  })

  test('an address that answers nothing: exit 1 and a sentence, not a table of zeros', async () => {
    const { url, server } = await serve(() => {})
    server.close()
    await new Promise((r) => setTimeout(r, 50))
    const r = await bench(url, join(work, 'none.json'), '-n', '5')
    assert.equal(r.code, 1)
    assert.match(r.stderr, /nothing answers at http:\/\/127\.0\.0\.1:\d+: is the platform running/)
  })
})

describe('microservice bench on a platform whose defaults are beta XML and RMC', () => {
  let d: DeployPlatform
  before(async () => {
    d = await startDeployPlatform((raw) => {
      raw.ENTRY_POINTS = {
        WEB_SERVICE_FACADE_HTTP: {
          ...(raw.ENTRY_POINTS as { WEB_SERVICE_FACADE_HTTP: object }).WEB_SERVICE_FACADE_HTTP,
          defaultSequenceName: 'betaParamArrayXmlInOutSequence',
          defaultApiId: 'RMC'
        }
      }
    })
    const dir = join(mkdtempSync(join(work, 'xml-')), 'example')
    cpSync(EXAMPLE_DIR, dir, { recursive: true })
    const up = await cli(d.configFile, 'upload', await packCopyOf(dir))
    assert.equal(up.code, 0, up.stderr)
  })
  after(() => d.stop())

  async function packCopyOf(dir: string): Promise<string> {
    const zip = `${dir}.zip`
    assert.equal((await cli(d.configFile, 'pack', dir, zip)).code, 0)
    return zip
  }

  test("the example is the description's beta XML one, sent as ROA: every call answered", async () => {
    const file = join(work, 'xml-defaults.json')
    const r = await cli(d.configFile, 'bench', 'example/calculator/multiply', ...FIFTY, '--json', file)
    assert.equal(r.code, 0, r.stdout + r.stderr)
    const result = JSON.parse(readFileSync(file, 'utf8')) as BenchResult
    assert.equal(result.target.contentType, 'application/xml')
    assert.deepEqual(result.target.headers, { 'X-PLATFORM-API-ID': 'ROA' })
    assert.equal(result.target.bodyBytes, Buffer.byteLength('<In><a>6</a><b>7</b></In>'))
    assert.deepEqual(result.runs[0]!.errors.byStatus, { '200': 50 })
  })

  test('a sequence the description does not show has no example: give --body', async () => {
    const r = await cli(
      d.configFile,
      'bench',
      'example/calculator/multiply',
      '--sequence',
      'alphaParamArrayJsonInOutSequence'
    )
    assert.equal(r.code, 2)
    assert.match(
      r.stderr,
      /shows its examples as betaParamArrayJsonInOutSequence and betaParamArrayXmlInOutSequence write them, not as alphaParamArrayJsonInOutSequence: give --body/
    )
  })
})
