// `microservice bench` over TLS, the real command against a platform whose gateway listens with HTTPS:
// the https:// address its control socket gives, the certificate verified with --ca, SNI with
// --servername, a certificate it cannot trust refused on one line naming --ca and --insecure, and
// --insecure measuring without verifying (docs/benchmarks.md, "Over TLS").
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { startDeployPlatform, cli, deployExample, type DeployPlatform } from '../../helpers/processes/deploy'
import { CertificateMaker, type Made } from '../../helpers/inputs/certificates'
import { startNginx } from '../../helpers/nginx'
import type { BenchResult } from '../../../src/cli/bench/bench-result'

const work = mkdtempSync(join(tmpdir(), 'bench-tls-'))
const ROUTE = 'example/calculator/multiply'
/** A short run: one connection, no warm-up, no progress line. */
const SHORT = ['-n', '50', '-c', '1', '-w', '0', '-q']

describe('microservice bench over TLS', () => {
  let d: DeployPlatform
  let certs: CertificateMaker
  let gateway: Made
  let port: number
  const bench = (...args: string[]) => cli(d.configFile, 'bench', ...args)
  const read = (file: string): BenchResult => JSON.parse(readFileSync(file, 'utf8')) as BenchResult

  before(async () => {
    certs = new CertificateMaker()
    gateway = certs.make('gateway', ['gateway.test'])
    // A second certificate for the name sni.test only: served to a client that asks for it by SNI.
    const sni = certs.make('sni', ['sni.test'])
    d = await startDeployPlatform((raw) => {
      const entry = raw.ENTRY_POINTS as { WEB_SERVICE_FACADE_HTTP: object }
      raw.ENTRY_POINTS = {
        ...entry,
        WEB_SERVICE_FACADE_HTTP: {
          ...entry.WEB_SERVICE_FACADE_HTTP,
          tls: {
            certFile: gateway.certFile,
            keyFile: gateway.keyFile,
            serverNames: { 'sni.test': { certFile: sni.certFile, keyFile: sni.keyFile } }
          }
        }
      }
    })
    port = d.platform.port
    await deployExample(d, work)
  })
  after(() => d.stop())

  test("the platform's https:// address, its certificate verified with --ca: every call answered", async () => {
    const file = join(work, 'ca.json')
    const r = await bench(ROUTE, '-c', '1,4', '-d', '1s', '-w', '200ms', '-q', '--ca', certs.caFile, '--json', file)
    assert.equal(r.code, 0, r.stdout + r.stderr)
    const result = read(file)
    assert.equal(result.target.url, `https://127.0.0.1:${port}/${ROUTE}`)
    assert.equal(result.ok, true)
    for (const run of result.runs) {
      assert.ok(run.requests > 20, `${run.requests} answers at ${run.connections}`)
      assert.equal(run.errors.total, 0, JSON.stringify(run.errors))
      assert.deepEqual(run.errors.byStatus, { '200': run.requests })
    }
    assert.deepEqual(result.warnings, [])
    assert.match(
      r.stdout,
      new RegExp(
        `^microservice bench ${ROUTE} → https://127\\.0\\.0\\.1:${port}/\\S+ \\(TLS, certificate verified by .*ca\\.crt, no SNI\\)`
      )
    )
  })

  test('a certificate it cannot trust: exit 2 and one line naming --ca and --insecure, no table', async () => {
    const stranger = new CertificateMaker()
    const cases: Array<[string[], RegExp]> = [
      [['--ca', stranger.caFile], /is not trusted by the CAs of --ca .*ca\.crt \(.+\): give the CA that signed it/],
      [[], /is not trusted by Node's list of CAs \(.+\): give the CA that signed it/]
    ]
    for (const [args, said] of cases) {
      const r = await bench(ROUTE, ...SHORT, ...args)
      assert.equal(r.code, 2, r.stdout + r.stderr)
      assert.match(r.stderr, said)
      assert.match(r.stderr, /with --ca FILE, or --insecure to measure without verifying it/)
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
      assert.equal(r.stdout, '')
    }
  })

  test('--insecure measures without verifying, and the report says so', async () => {
    const file = join(work, 'insecure.json')
    const r = await bench(ROUTE, ...SHORT, '-c', '2', '--insecure', '--json', file)
    assert.equal(r.code, 0, r.stdout + r.stderr)
    const run = read(file).runs[0]!
    assert.equal(run.requests, 50)
    assert.equal(run.errors.total, 0)
    assert.match(r.stdout, /\(TLS, certificate NOT verified \(--insecure\), no SNI\)/)
    assert.match(r.stdout, /warning: the certificate of https:\/\/127\.0\.0\.1:\d+ was not verified \(--insecure\)/)
  })

  test('--servername is sent as SNI and is the name the certificate must have', async () => {
    const url = `https://127.0.0.1:${port}`
    // sni.test's certificate is served only when SNI asks for it: the gateway's names gateway.test alone.
    const ok = await bench(ROUTE, ...SHORT, '--url', url, '--ca', certs.caFile, '--servername', 'sni.test')
    assert.equal(ok.code, 0, ok.stdout + ok.stderr)
    assert.match(ok.stdout, /certificate verified by .*, SNI sni\.test\)/)
    const named = await bench(ROUTE, ...SHORT, '--url', url, '--ca', certs.caFile, '--servername', 'gateway.test')
    assert.equal(named.code, 0, named.stdout + named.stderr)
    const wrong = await bench(ROUTE, ...SHORT, '--url', url, '--ca', certs.caFile, '--servername', 'elsewhere.test')
    assert.equal(wrong.code, 2)
    assert.match(
      wrong.stderr,
      /does not name the host checked \(.*elsewhere\.test.*\): give --servername .* or --insecure/
    )
  })

  test('a run saved over TLS is compared with runs over TLS only', async () => {
    const file = join(work, 'saved-tls.json')
    const args = ['-c', '1', '-d', '400ms', '--rounds', '2', '-w', '0', '-q']
    const saved = await bench(ROUTE, ...args, '--ca', certs.caFile, '--save', file)
    assert.equal(saved.code, 0, saved.stdout + saved.stderr)
    const plain = await bench(ROUTE, ...args, '--url', `http://127.0.0.1:${port}`, '--baseline', file)
    assert.equal(plain.code, 2, plain.stdout + plain.stderr)
    assert.match(plain.stderr, /measured another call: over https:\/\/, not http:\/\//)
  })

  test('plain http:// to the TLS port: the command says it speaks TLS', async () => {
    const r = await bench(ROUTE, ...SHORT, '--url', `http://127.0.0.1:${port}`, '--timeout', '3s')
    assert.equal(r.code, 1, r.stdout + r.stderr)
    assert.match(r.stderr, new RegExp(`speaks TLS, not plain HTTP: give --url https://127\\.0\\.0\\.1:${port}`))
  })

  test('https:// to a plain HTTP server: the handshake that failed, not a table of errors', async () => {
    const server = createServer((req, res) => req.resume().on('end', () => res.end('{}')))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
      const r = await bench('a/b/c', ...SHORT, '-b', '{}', '--url', url, '--insecure', '--timeout', '3s')
      assert.equal(r.code, 1, r.stdout + r.stderr)
      assert.match(r.stderr, /did not complete a TLS handshake \(.+\): is it https:\/\//)
      assert.equal(r.stdout, '')
    } finally {
      server.close()
    }
  })

  test('an edge that requires client certificates: measured with --cert and --key, refused without', async () => {
    // This host's uWebSockets.js build cannot require them itself (docs/security.md): the generated
    // nginx does, in front of the gateway.
    const client = certs.make('bench-client', ['client.test'])
    const edge = certs.make('bench-edge', ['edge.test'])
    const nginx = await startNginx(
      [{ host: '127.0.0.1', gatewayPort: port, edgePort: d.platform.edgePort }],
      undefined,
      {
        tls: { certFile: edge.certFile, keyFile: edge.keyFile },
        upstreamTls: { caFile: certs.caFile, serverName: 'gateway.test' },
        clientCertificates: { caFile: certs.caFile, mode: 'require' }
      }
    )
    try {
      const run = (...args: string[]) =>
        bench(ROUTE, ...SHORT, '--url', nginx.url, '--edge', '--ca', certs.caFile, '--servername', 'edge.test', ...args)
      const file = join(work, 'client.json')
      const ok = await run('--cert', client.certFile, '--key', client.keyFile, '--json', file)
      assert.equal(ok.code, 0, ok.stdout + ok.stderr)
      assert.deepEqual(read(file).runs[0]!.errors.byStatus, { '200': 50 })
      assert.match(
        ok.stdout,
        /\(TLS, certificate verified by .*ca\.crt, SNI edge\.test, client certificate .*bench-client\.crt\)/
      )
      const without = await run('--json', file)
      assert.equal(without.code, 1, without.stdout + without.stderr)
      assert.deepEqual(read(file).runs[0]!.errors.byStatus, { '403': 50 })
      assert.match(without.stdout, /errors at 1 connection: 403 ×50, CLIENT_CERTIFICATE_REQUIRED ×50/)
    } finally {
      await nginx.stop()
    }
  })

  test('usage mistakes: one line and where the options are, not the whole usage', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--bogus'], /^microservice bench: Unknown option '--bogus' \(see microservice bench --help\)$/],
      [['--url', 'ftp://x'], /--url 'ftp:\/\/x': http:\/\/ or https:\/\/ is measured, not ftp:\/\/ \(see microservice/],
      [['--url', 'nonsense'], /--url 'nonsense' is not a URL like http:\/\/127\.0\.0\.1:8082 \(see microservice/],
      [['--ca', certs.caFile, '--insecure'], /--ca verifies the certificate and --insecure does not: give one/],
      [['--url', 'http://127.0.0.1:1', '--ca', certs.caFile], /--ca: for an https:\/\/ gateway, and http:\/\/127/],
      [['--servername', '10.0.0.1'], /--servername '10\.0\.0\.1' is not a DNS name/],
      [['--ca', join(work, 'none.pem')], /--ca .*none\.pem: no such file$/],
      [['--cert', gateway.certFile], /--cert needs --key too: a client certificate and its key/],
      [['--cert', gateway.certFile, '--key', certs.caFile], /--cert .*gateway\.crt with --key .*ca\.crt: /],
      [['--url', 'http://127.0.0.1:1', '--key', gateway.keyFile], /--key: for an https:\/\/ gateway/]
    ]
    for (const [args, said] of cases) {
      const r = await bench(ROUTE, ...SHORT, ...args)
      assert.equal(r.code, 2, args.join(' '))
      assert.match(r.stderr.trim(), said)
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr)
      assert.doesNotMatch(r.stderr, /usage:/)
    }
  })
})
