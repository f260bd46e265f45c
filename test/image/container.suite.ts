// The platform's image, run with podman as an operator would: not part of `npm test` (it needs
// podman and a built image); `npm run test:image` builds the image and runs this file against it
// (IGW_IMAGE names the image). Everything is asked of the running container over real sockets.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { chownSync, mkdtempSync, readFileSync, renameSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { zipDirectory } from '../../src/platform/package/zip'
import { MALFORMED_KINDS, firstAnswer, type MalformedKind } from '../helpers/inputs/malformed-http'
import { Platform } from '../../src/platform/platform'
import { TEST_PLATFORM_OPTIONS, testConfig } from '../helpers/platform'
import { PodNetwork } from '../helpers/processes/pods'
import { PODMAN, podman, startPlatformContainer } from '../helpers/processes/container'
import { until } from '../helpers/until'
import { startDns } from '../helpers/processes/dns'
import { CertificateMaker, presented } from '../helpers/inputs/certificates'
import { request as httpsRequest } from 'node:https'
import { chmodSync, copyFileSync } from 'node:fs'

const run = promisify(execFile)
const IMAGE = process.env.IGW_IMAGE ?? 'localhost/invocation-gateway:latest'
const TESTKIT = join(__dirname, '..', 'fixtures', 'testkit')
const CLI = join(__dirname, '..', '..', '..', 'bin', 'microservice')
const JSON_CT = { 'Content-Type': 'application/json' }
const XML_ALPHA = { 'Content-Type': 'application/xml', 'X-PLATFORM-Sequence-Name': 'alphaParamArrayXmlInOutSequence' }
const RMC = { 'Content-Type': 'application/json', 'X-PLATFORM-API-ID': 'RMC' }

async function post(base: string, path: string, body: string, headers: Record<string, string> = JSON_CT) {
  const r = await fetch(base + path, { method: 'POST', headers, body })
  return { status: r.status, headers: r.headers, text: await r.text() }
}

describe(`the image ${IMAGE} under podman`, () => {
  const name = `igw-image-test-${process.pid}`
  let gateway = 0
  let edge = 0
  let admin = 0
  let base = ''
  let upload = ''

  before(async () => {
    ;({ base, edge, admin, upload } = await startPlatformContainer(name, IMAGE, [
      'PLATFORM__PLATFORM__drainTimeoutMs=20000'
    ]))
    gateway = Number(new URL(base).port)
  })

  after(async () => {
    await podman('rm', '-f', '-v', name).catch(() => '')
  })

  test('runs Node 24 as a non-root user, with its labels and within 250 MB', async () => {
    assert.match((await podman('exec', name, 'node', '--version')).trim(), /^v24\./)
    assert.equal((await podman('exec', name, 'id', '-u')).trim(), '1000')
    const inspect = JSON.parse(await podman('image', 'inspect', IMAGE)) as Array<{
      Size: number
      Config: { Labels: Record<string, string>; Volumes?: Record<string, unknown>; StopSignal?: string }
    }>
    const img = inspect[0]!
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      version: string
    }
    assert.equal(img.Config.Labels['org.opencontainers.image.version'], pkg.version)
    assert.match(img.Config.Labels['org.opencontainers.image.revision'] ?? '', /^[0-9a-f]{40}$|^unknown$/)
    assert.deepEqual(Object.keys(img.Config.Volumes ?? {}), ['/var/lib/invocation-gateway'])
    assert.ok(img.Size < 250_000_000, `${img.Size} bytes`)
    const uws = JSON.parse(await podman('exec', name, 'cat', '/app/node_modules/uWebSockets.js/PROVENANCE.json')) as {
      binary: string
    }
    assert.equal(uws.binary, 'uws_linux_x64_137.node')
  })

  test("the README's calls", async () => {
    assert.deepEqual(
      await post(base, '/example/calculator/multiply', '{"a":2,"b":3}').then((r) => [r.status, r.text]),
      [200, '{"result":6}']
    )
    const xml = await post(base, '/example/calculator/multiply', '<in><a>2</a><b>3</b></in>', XML_ALPHA)
    assert.equal(xml.text, '<out>\n  <result>6</result>\n</out>')
    assert.equal((await post(base, '/example/calculator/multiplyInts', '[2,3]', RMC)).text, '6')
    const rmcXml = await post(
      base,
      '/example/calculator/multiplyIntsToOut',
      '<paramArray><int>2</int><int>3</int></paramArray>',
      {
        ...XML_ALPHA,
        'X-PLATFORM-API-ID': 'RMC'
      }
    )
    assert.equal(rmcXml.text, '<out>\n  <result>6</result>\n</out>')
    const refused = await post(base, '/example/calculator/multiplyInts', '[2,3]')
    assert.equal(refused.status, 400)
    assert.equal((JSON.parse(refused.text) as { code: string }).code, 'ROA_NEEDS_ONE_PARAMETER')
    const viaEdge = await post(
      `http://127.0.0.1:${edge}`,
      '/_eapi/ELASTIC_HTTP/example/calculator/multiply',
      '{"a":6,"b":7}'
    )
    assert.equal(viaEdge.text, '{"result":42}')
  })

  test('/healthz, /readyz and /metrics on the admin port', async () => {
    assert.equal((await fetch(`http://127.0.0.1:${admin}/healthz`)).status, 200)
    assert.equal((await fetch(`http://127.0.0.1:${admin}/readyz`)).status, 200)
    const metrics = await (await fetch(`http://127.0.0.1:${admin}/metrics`)).text()
    assert.match(metrics, /igw_requests_total\{[^}]*microservice="example"[^}]*\} [1-9]/)
  })

  test('the health check the image declares passes', async () => {
    // podman runs it on demand here (its timers need systemd); exit 0 means healthy.
    await podman('healthcheck', 'run', name)
  })

  test('a microservice copied into the mounted upload directory is deployed, and the CLI sees it', async () => {
    const zip = join(upload, '.testkit.zip.part')
    await zipDirectory(TESTKIT, 'testkit', zip)
    chownSync(zip, 1000, 1000)
    renameSync(zip, join(upload, 'testkit.zip'))
    await until(async () => (await post(base, '/testkit/slow/sleep', '1')).status === 200, 30_000, 'testkit answers')
    const list = await podman('exec', name, 'microservice', 'list')
    assert.match(list, /testkit 0\.0\.1/)
    assert.match(list, /example 1\.0\.0/)
  })

  test('microservice image: a package as its own image, run as a pod in a network namespace, found by DNS, stopped gracefully', async () => {
    const zip = join(mkdtempSync(join(tmpdir(), 'image-package-')), 'testkit-0.0.1.zip')
    await zipDirectory(TESTKIT, 'testkit', zip)
    const tag = `localhost/testkit-pod:test-${process.pid}`
    const pod = `igw-testkit-pod-${process.pid}`
    const built = await run(process.execPath, [CLI, 'image', zip, '--base', IMAGE, '--tag', tag], {
      maxBuffer: 16 << 20
    })
    assert.match(
      built.stdout,
      new RegExp(`^built ${tag}: testkit 0\\.0\\.1 in /app/microservices/testkit on ${IMAGE}$`, 'm')
    )
    const pods = new PodNetwork()
    const address = pods.add(2)
    const dns = await startDns('testkit.ms.test', [address])
    process.env.IGW_IMAGE_TEST_SECRET = 'the pod test secret'
    let platform: Platform | null = null
    try {
      // The image's own command: microservice host on tcp:0.0.0.0:7000 with MICROSERVICE_SECRET.
      await podman(
        'run',
        '-d',
        '--name',
        pod,
        '--network',
        `ns:${pods.netnsPath(2)}`,
        '-e',
        'MICROSERVICE_SECRET=the pod test secret',
        tag
      )
      platform = new Platform(
        testConfig({
          MICROSERVICES: {
            discovery: [
              {
                name: 'testkit',
                dns: 'testkit.ms.test',
                port: 7000,
                secretEnv: 'IGW_IMAGE_TEST_SECRET',
                intervalMs: 500
              }
            ],
            dnsServers: [dns.server]
          }
        }),
        TEST_PLATFORM_OPTIONS
      )
      const url = `http://127.0.0.1:${await platform.start([])}`
      await until(async () => (await post(url, '/testkit/slow/sleep', '5')).text === '5', 30_000, 'the pod serves')
      const st = platform.manager.statusOf('testkit')!
      assert.deepEqual(
        st.instances.map((i) => [i.remote, i.state, i.version, i.endpoint]),
        [[true, 'connected', '0.0.1', `${address}:7000`]]
      )
      await podman('healthcheck', 'run', pod) // the package image's own check: exit 0
      // podman stop sends SIGTERM, as the kubelet does: the call in flight is answered, then the pod exits 0.
      const inFlight = post(url, '/testkit/slow/sleep', '1500')
      await new Promise((r) => setTimeout(r, 300))
      await podman('stop', '-t', '30', pod)
      const answered = await inFlight
      assert.deepEqual([answered.status, answered.text], [200, '1500'])
      assert.equal((await podman('inspect', '-f', '{{.State.ExitCode}}', pod)).trim(), '0')
      assert.match(await podman('logs', pod), /stopping: its gateways are told to send no more calls/)
    } finally {
      await platform?.stop()
      await podman('rm', '-f', pod).catch(() => '')
      await podman('rmi', '-f', tag).catch(() => '')
      dns.stop()
      pods.close()
    }
  })

  test('malformed requests are answered within a second, directly on :8082', async () => {
    const results = await Promise.all(
      MALFORMED_KINDS.map(async (k: MalformedKind) => [k, await firstAnswer(gateway, k.text)] as const)
    )
    for (const [k, r] of results) {
      assert.ok(r !== null, `${k.name}: an answer within 1 s`)
      assert.equal(r.status, k.current, `${k.name}: ${r.body}`)
    }
  })

  test('SIGTERM: the call in flight finishes, then the container exits 0', async () => {
    const call = post(base, '/testkit/slow/sleep', '1500')
    await new Promise((r) => setTimeout(r, 300))
    const t0 = Date.now()
    await podman('kill', '--signal', 'TERM', name)
    const answer = await call
    assert.deepEqual([answer.status, answer.text], [200, '1500'])
    const code = (await podman('wait', name)).trim()
    assert.equal(code, '0')
    assert.ok(Date.now() - t0 < 20_000, `${Date.now() - t0} ms`)
    const logs = await run(PODMAN, ['logs', name]).then((r) => r.stdout + r.stderr)
    assert.match(logs, /SIGTERM: draining/)
  })
})

// HTTPS on the image's Node 24 and uWebSockets.js 20.57 build: a call, TLS 1.1 refused, and a
// certificate renewed in the mounted directory (as a Secret's files change) taken up without a restart.
describe(`the image ${IMAGE} with TLS on the gateway`, () => {
  const name = `igw-image-tls-${process.pid}`
  const certs = new CertificateMaker()
  const dir = mkdtempSync(join(tmpdir(), 'image-tls-'))
  let base = ''
  before(async () => {
    const first = certs.make('first', ['gateway.test'])
    chmodSync(dir, 0o755) // mounted: the image's user must reach the files
    for (const [from, to] of [
      [first.certFile, 'tls.crt'],
      [first.keyFile, 'tls.key']
    ] as const) {
      copyFileSync(from, join(dir, to))
      chmodSync(join(dir, to), 0o644) // the image's user reads the mounted files
    }
    const tls = JSON.stringify({
      certFile: '/etc/igw-tls/tls.crt',
      keyFile: '/etc/igw-tls/tls.key',
      reloadIntervalMs: 100
    })
    ;({ base } = await startPlatformContainer(
      name,
      IMAGE,
      [`PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__tls=${tls}`],
      [`${dir}:/etc/igw-tls:ro`]
    ))
  })

  after(async () => {
    await podman('rm', '-f', '-v', name).catch(() => '')
  })

  test('a call over HTTPS; TLS 1.1 refused; a renewed certificate served to new connections', async () => {
    const port = Number(new URL(base).port)
    // The start-up line names the scheme a client must use.
    assert.match(await podman('logs', name), /"msg":"gateway listening on https:\/\/\S+ \(\d+ threads?\)"/)
    const call = (): Promise<string> =>
      new Promise((resolve, reject) => {
        const req = httpsRequest(
          {
            host: '127.0.0.1',
            port,
            servername: 'gateway.test',
            path: '/example/calculator/multiply',
            method: 'POST',
            ca: readFileSync(certs.caFile),
            headers: JSON_CT
          },
          (res) => {
            let text = ''
            res.on('data', (d: Buffer) => (text += d.toString()))
            res.on('end', () => resolve(`${res.statusCode} ${text}`))
          }
        )
        req.on('error', reject)
        req.end('{"a":6,"b":7}')
      })
    assert.equal(await call(), '200 {"result":42}')
    const old = await run('openssl', [
      's_client',
      '-connect',
      `127.0.0.1:${port}`,
      '-tls1_1',
      '-cipher',
      'DEFAULT@SECLEVEL=0'
    ]).then(
      (r) => r.stdout + r.stderr,
      (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}`
    )
    assert.match(old, /alert protocol version/i)
    const before = (await presented(port, 'gateway.test')).fingerprint
    const next = certs.make('next', ['gateway.test'], { days: 60 })
    for (const [from, to] of [
      [next.certFile, 'tls.crt'],
      [next.keyFile, 'tls.key']
    ] as const) {
      copyFileSync(from, join(dir, `${to}.new`))
      chmodSync(join(dir, `${to}.new`), 0o644)
      renameSync(join(dir, `${to}.new`), join(dir, to))
    }
    await until(
      async () => (await presented(port, 'gateway.test')).fingerprint !== before,
      10_000,
      'the renewed certificate served'
    )
    assert.equal(await call(), '200 {"result":42}')
    assert.match(await podman('logs', name), /tls: renewed certificates served/)
  })
})
