// HTTPS on the gateway, edge and admin listeners (their `tls` blocks) against a real platform, with real
// clients: Node's https and tls, curl and openssl s_client. Versions refused, SNI, hostile handshakes,
// and certificates renewed under load without a failed call (docs/security.md, "TLS").
import { test, describe, before } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync, renameSync, copyFileSync } from 'node:fs'
import { connect as tcpConnect, type Socket } from 'node:net'
import { Agent, request } from 'node:https'
import { X509Certificate } from 'node:crypto'
import { promisify } from 'node:util'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { Platform } from '../../../src/platform/platform'
import { EXAMPLE_DIR, TESTKIT_DIR, TEST_PLATFORM_OPTIONS, testConfig, until, type Json } from '../../helpers/platform'
import { parsePeerCertificate } from '../../../src/gateway/tls/peer-certificates'
import { CertificateMaker, presented, type Made } from '../../helpers/inputs/certificates'
import { startNginx } from '../../helpers/nginx'

const run = promisify(execFile)

let certs: CertificateMaker
let main: Made
let other: Made

before(() => {
  certs = new CertificateMaker()
  main = certs.make('main', ['gateway.test', 'localhost'])
  other = certs.make('other', ['other.test'])
})

function tlsBlock(files: Made, extra: { [k: string]: Json } = {}): { [k: string]: Json } {
  return { certFile: files.certFile, keyFile: files.keyFile, ...extra }
}

async function start(overrides: { [k: string]: Json }): Promise<Platform> {
  const platform = new Platform(testConfig(overrides), TEST_PLATFORM_OPTIONS)
  await platform.start([EXAMPLE_DIR])
  return platform
}

interface Answer {
  status: number
  text: string
}

function post(port: number, path: string, body: string, agent: Agent, servername = 'gateway.test'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        servername,
        ca: readFileSync(certs.caFile),
        headers: { 'Content-Type': 'application/json' }
      },
      (res) => {
        let text = ''
        res.on('data', (d: Buffer) => (text += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      }
    )
    req.on('error', reject)
    req.end(body)
  })
}

function fingerprint(file: string): string {
  return new X509Certificate(readFileSync(file)).fingerprint256
}

/** curl to https://NAME:PORT/PATH on 127.0.0.1, trusting the test CA: what it printed. */
async function curl(name: string, port: number | string, path: string, extra: string[] = []): Promise<string> {
  const url = `https://${name}:${port}${path}`
  return (await run('curl', ['-s', '--cacert', certs.caFile, '--resolve', `${name}:${port}:127.0.0.1`, ...extra, url]))
    .stdout
}

/** s_client's transcript of one handshake (it exits at once: stdin is empty). */
async function sClient(port: number, args: string[]): Promise<string> {
  try {
    const r = await run('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, ...args], { timeout: 10000 })
    return r.stdout + r.stderr
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string }
    return `${e.stdout ?? ''}${e.stderr ?? ''}`
  }
}

describe('TLS on the listeners', () => {
  test('HTTPS on the gateway, edge and admin; TLS 1.0 and 1.1 refused by the server; plain HTTP gets no answer', async () => {
    const platform = await start({
      ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { tls: tlsBlock(main) } },
      EDGE: { enabled: true, tls: tlsBlock(main) },
      ADMIN: { tls: tlsBlock(main) }
    })
    const agent = new Agent({ keepAlive: true })
    try {
      const a = await post(platform.port, '/example/calculator/multiply', '{"a":6,"b":7}', agent)
      assert.deepEqual(a, { status: 200, text: '{"result":42}' })
      // curl, trusting the test CA, over the gateway's name.
      assert.match(await curl('gateway.test', platform.edgePort, '/'), /example/)
      assert.match(await curl('gateway.test', platform.adminPort, '/healthz'), /"status":"alive"/)
      for (const port of [platform.port, platform.edgePort, platform.adminPort]) {
        // A client willing to speak 1.0 or 1.1 (security level 0 lets OpenSSL 3 offer them): the
        // server answers with a protocol_version alert. 1.2 from the same client is accepted.
        for (const old of ['-tls1', '-tls1_1']) {
          const t = await sClient(port, [old, '-cipher', 'DEFAULT@SECLEVEL=0'])
          assert.match(t, /alert protocol version|unsupported protocol|no protocols available/i, `${port} ${old}: ${t}`)
          assert.match(t, /Cipher is \(NONE\)/, t)
        }
        assert.match(await sClient(port, ['-tls1_2', '-cipher', 'DEFAULT@SECLEVEL=0']), /Protocol\s*: TLSv1\.2/)
      }
      // Plain HTTP on the TLS port: no HTTP answer.
      const plain = await fetch(`http://127.0.0.1:${platform.port}/example/calculator/multiply`, {
        method: 'POST',
        body: '{"a":1,"b":1}',
        signal: AbortSignal.timeout(5000)
      }).then(
        (r) => `HTTP ${r.status}`,
        (err: Error) => `failed: ${err.name}`
      )
      assert.match(plain, /^failed/)
      // The expiry of each served certificate, by listener.
      const m = parsePrometheusTextFormat(await curl('gateway.test', platform.adminPort, '/metrics')) as Array<{
        name: string
        metrics: Array<{ value: string; labels: Record<string, string> }>
      }>
      const expiry = m.find((f) => f.name === 'igw_tls_certificate_expiration_timestamp_seconds')?.metrics ?? []
      const validTo = Math.floor(new Date(new X509Certificate(readFileSync(main.certFile)).validTo).getTime() / 1000)
      assert.deepEqual(expiry.map((s) => [s.labels.listener, s.labels.server_name, Number(s.value)]).sort(), [
        ['admin', '', validTo],
        ['edge', '', validTo],
        ['gateway', '', validTo]
      ])
    } finally {
      agent.destroy()
      await platform.stop(0, 0)
    }
  })

  test("no plaintext door: the edge left at its defaults speaks the gateway's TLS; a plain listener on the network beside TLS refuses to start", async () => {
    const platform = await start({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { tls: tlsBlock(main) } } })
    try {
      // /_eapi on the edge is the gateway's method: over HTTPS it is answered...
      const call = await curl('gateway.test', platform.edgePort, '/_eapi/ELASTIC_HTTP/example/calculator/multiply', [
        '-H',
        'Content-Type: application/json',
        '-d',
        '{"a":6,"b":7}'
      ])
      assert.equal(call, '{"result":42}')
      // ...and in plain HTTP nothing is.
      for (const path of ['/_eapi/ELASTIC_HTTP/example/calculator/multiply', '/_swagger/example/openapi.json']) {
        const plain = await fetch(`http://127.0.0.1:${platform.edgePort}${path}`, {
          method: path.startsWith('/_eapi') ? 'POST' : 'GET',
          headers: { 'Content-Type': 'application/json' },
          body: path.startsWith('/_eapi') ? '{"a":6,"b":7}' : undefined,
          signal: AbortSignal.timeout(5000)
        }).then(
          (r) => `HTTP ${r.status}`,
          (err: Error) => `failed: ${err.name}`
        )
        assert.match(plain, /^failed/, path)
      }
    } finally {
      await platform.stop(0, 0)
    }
    // The admin listener moved to the network without TLS: the start fails before anything listens.
    const open = new Platform(
      testConfig({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { tls: tlsBlock(main) } }, ADMIN: { host: '0.0.0.0' } }),
      TEST_PLATFORM_OPTIONS
    )
    await assert.rejects(
      open.start([EXAMPLE_DIR]),
      /the admin listener would listen on 0\.0\.0\.0:0 in plain HTTP while the gateway speaks TLS.*ADMIN\.allowPlaintext/
    )
    assert.equal(open.port, 0)
  })

  test('SNI picks the certificate; calls under a server name are answered; an unknown name gets the default', async () => {
    const platform = await start({
      ENTRY_POINTS: {
        WEB_SERVICE_FACADE_HTTP: { tls: tlsBlock(main, { serverNames: { 'other.test': tlsBlock(other) } }) }
      }
    })
    const agent = new Agent({ keepAlive: true })
    try {
      assert.equal((await presented(platform.port, 'other.test')).cn, 'other.test')
      assert.equal((await presented(platform.port, 'gateway.test')).cn, 'gateway.test')
      assert.equal((await presented(platform.port, 'unknown.test')).cn, 'gateway.test')
      assert.equal((await presented(platform.port)).cn, 'gateway.test')
      assert.match(await sClient(platform.port, ['-servername', 'other.test']), /subject=CN\s*=\s*other\.test/)
      for (const name of ['other.test', 'gateway.test']) {
        const a = await post(platform.port, '/example/calculator/multiply', '{"a":2,"b":21}', agent, name)
        assert.deepEqual(a, { status: 200, text: '{"result":42}' }, name)
      }
    } finally {
      agent.destroy()
      await platform.stop(0, 0)
    }
  })

  test('the admin listener (Node TLS) with client certificates: "require" ends a handshake without one, "request" does not', async () => {
    const stranger = new CertificateMaker() // another CA: its certificates do not chain to ours
    const client = certs.make('ops', ['ops.test'], { cn: 'ops' })
    const foreign = stranger.make('foreign', ['ops.test'])
    const healthz = (port: number, files: Made | null) =>
      curl(
        'gateway.test',
        port,
        '/healthz',
        files === null ? [] : ['--cert', files.certFile, '--key', files.keyFile]
      ).then(
        (out) => out,
        (err: { code?: number }) => `curl exit ${err.code}`
      )
    for (const mode of ['require', 'request'] as const) {
      const platform = await start({
        ADMIN: { tls: tlsBlock(main, { clientCertificates: { mode, caFile: certs.caFile } }) }
      })
      try {
        assert.match(await healthz(platform.adminPort, client), /"status":"alive"/, mode)
        // Node's TLS: a certificate from another CA ends the connection before an answer in both modes
        // (under TLS 1.3 right after the handshake: curl's 52 or 56); none, only under require.
        assert.match(await healthz(platform.adminPort, foreign), /^curl exit (35|52|56)$/, `${mode}: foreign`)
        if (mode === 'require') assert.match(await healthz(platform.adminPort, null), /^curl exit (35|52|56)$/)
        else assert.match(await healthz(platform.adminPort, null), /"status":"alive"/)
        // s_client names the CA the server asks certificates of.
        assert.match(
          await sClient(platform.adminPort, ['-servername', 'gateway.test']),
          /Acceptable client certificate CA names\s*\n\s*CN\s*=\s*igw test CA/
        )
      } finally {
        await platform.stop(0, 0)
      }
    }
  })

  test('garbage and half-finished handshakes on the TLS port leave the gateway answering others', async () => {
    const platform = await start({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { tls: tlsBlock(main) } } })
    const sockets: Socket[] = []
    const agent = new Agent({ keepAlive: false })
    try {
      const open = (): Promise<Socket> =>
        new Promise((resolve, reject) => {
          const s = tcpConnect(platform.port, '127.0.0.1', () => resolve(s))
          s.on('error', () => {})
          s.once('error', reject)
          s.resume()
          sockets.push(s)
        })
      // A TLS record header that announces a 512-byte ClientHello, then 40 bytes of it, held open.
      const half = Buffer.concat([
        Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]),
        Buffer.alloc(29, 7)
      ])
      for (let k = 0; k < 16; k++)
        (await open()).write(k % 2 === 0 ? half : Buffer.from(`GARBAGE ${'x'.repeat(k * 100)}\r\n\r\n`))
      // Garbage ends in an alert or a close; a half handshake waits. Meanwhile others are served.
      const answers = await Promise.all(
        Array.from({ length: 32 }, (_, k) =>
          post(platform.port, '/example/calculator/multiply', `{"a":${k},"b":2}`, agent)
        )
      )
      answers.forEach((a, k) => assert.deepEqual(a, { status: 200, text: `{"result":${k * 2}}` }))
      const garbage = sockets.filter((_, k) => k % 2 === 1)
      await until(
        () => garbage.every((s) => s.destroyed || s.readableEnded),
        10000,
        'every garbage connection closed by the gateway'
      )
    } finally {
      for (const s of sockets) s.destroy()
      agent.destroy()
      await platform.stop(0, 0)
    }
  })

  for (const threads of [1, 2])
    test(`a certificate renewed under 16 keep-alive clients (threads ${threads}): 0 failed calls, new connections get it, a bad renewal refused`, async () => {
      // The listeners' files are copies this test replaces, as certbot and cert-manager do (rename over).
      const live = certs.make(`live-${threads}`, ['gateway.test'])
      const next = certs.make(`next-${threads}`, ['gateway.test'], { days: 60 })
      const block = tlsBlock(live, { reloadIntervalMs: 50 })
      const platform = await start({
        ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { threads, tls: block } },
        ADMIN: { tls: block }
      })
      const agent = new Agent({ keepAlive: true, maxSockets: 16 })
      let stop = false
      const failures: string[] = []
      let answered = 0
      const client = async (id: number): Promise<void> => {
        for (let k = 0; !stop; k++) {
          try {
            const a = await post(platform.port, '/example/calculator/multiply', `{"a":${id},"b":${k}}`, agent)
            if (a.status !== 200 || a.text !== `{"result":${id * k}}`) failures.push(`${a.status} ${a.text}`)
            else answered++
          } catch (err) {
            failures.push((err as Error).message)
          }
        }
      }
      const load = Promise.all(Array.from({ length: 16 }, (_, id) => client(id)))
      try {
        const before = fingerprint(live.certFile)
        await until(() => answered > 200, 10000, 'load under way')
        assert.equal((await presented(platform.port, 'gateway.test')).fingerprint, before)
        // The new certificate first, then its key: between the two renames the pair does not match
        // and is refused; the next look takes the whole pair.
        copyFileSync(next.certFile, `${live.certFile}.new`)
        copyFileSync(next.keyFile, `${live.keyFile}.new`)
        renameSync(`${live.certFile}.new`, live.certFile)
        await new Promise((r) => setTimeout(r, 150))
        renameSync(`${live.keyFile}.new`, live.keyFile)
        const after = fingerprint(next.certFile)
        // Every thread's App is renewed: several new connections (spread by the kernel) all see it.
        // A probe that lands in the old socket's accept queue in the instant of a swap is reset by
        // Linux (docs/security.md, "TLS": seen once at 2 threads); such a probe is counted, not
        // taken for a failed call: the calls above are the keep-alive clients'.
        let resets = 0
        const probe = (): Promise<{ fingerprint: string }> =>
          presented(platform.port, 'gateway.test').catch((err: NodeJS.ErrnoException) => {
            if (err.code !== 'ECONNRESET') throw err
            resets++
            return { fingerprint: '' }
          })
        await until(
          async () => {
            const seen = await Promise.all(Array.from({ length: 8 }, probe))
            return seen.every((s) => s.fingerprint === after)
          },
          10000,
          'new connections get the renewed certificate'
        )
        await until(
          async () => (await presented(platform.adminPort, 'gateway.test')).fingerprint === after,
          10000,
          'the admin listener serves it too'
        )
        assert.ok(resets <= 2, `${resets} new connections reset during the swaps`)
        const renewedAt = answered
        await until(() => answered > renewedAt + 200, 10000, 'calls go on after the renewal')
        // A broken renewal (a key that is not the certificate's) is refused: the renewed one stays.
        copyFileSync(other.keyFile, `${live.keyFile}.new`)
        renameSync(`${live.keyFile}.new`, live.keyFile)
        await new Promise((r) => setTimeout(r, 300))
        assert.equal((await presented(platform.port, 'gateway.test')).fingerprint, after)
        const a = await post(platform.port, '/example/calculator/multiply', '{"a":3,"b":3}', new Agent())
        assert.equal(a.status, 200)
      } finally {
        stop = true
        await load
        agent.destroy()
        await platform.stop(0, 0)
      }
      assert.deepEqual(failures, [])
      assert.ok(answered > 400, `${answered} calls`)
    })

  test('the generated nginx edge terminates TLS for clients and verifies the nodes it reaches over TLS', async () => {
    const platform = await start({
      ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { tls: tlsBlock(main) } },
      EDGE: { enabled: true, tls: tlsBlock(main) }
    })
    const node = { host: '127.0.0.1', gatewayPort: platform.port, edgePort: platform.edgePort }
    const limits = { maxBodyBytes: 65536, executingTimeoutMs: 240000 }
    const edgeCert = certs.make('edge', ['edge.test'])
    const nginx = await startNginx([node], limits, {
      tls: { certFile: edgeCert.certFile, keyFile: edgeCert.keyFile },
      upstreamTls: { caFile: certs.caFile, serverName: 'gateway.test' }
    })
    // The same nodes, but nginx told to trust another CA: it refuses them, and says so.
    const wrong = await startNginx([node], limits, {
      upstreamTls: { caFile: new CertificateMaker().caFile, serverName: 'gateway.test' }
    })
    try {
      const port = new URL(nginx.url).port
      const call = await curl('edge.test', port, '/_eapi/ELASTIC_HTTP/example/calculator/multiply', [
        '-H',
        'Content-Type: application/json',
        '-d',
        '{"a":6,"b":7}'
      ])
      assert.equal(call, '{"result":42}')
      const ui = curl('edge.test', port, '/_swagger/example/openapi.json', ['-o', '/dev/null', '-w', '%{http_code}'])
      assert.equal(await ui, '200')
      const refused = await fetch(`${wrong.url}/_eapi/ELASTIC_HTTP/example/calculator/multiply`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"a":6,"b":7}'
      })
      assert.equal(refused.status, 502)
      assert.match(wrong.errors(), /upstream SSL certificate verify error/)
    } finally {
      await wrong.stop()
      await nginx.stop()
      await platform.stop(0, 0)
    }
  })

  test('the generated nginx edge verifies client certificates and hands the gateway their subject', async () => {
    // The nodes trust nginx's address (loopback, the default) for the identity headers.
    const platform = new Platform(testConfig({}), TEST_PLATFORM_OPTIONS)
    await platform.start([EXAMPLE_DIR, TESTKIT_DIR])
    const node = { host: '127.0.0.1', gatewayPort: platform.port, edgePort: platform.edgePort }
    const edgeCert = certs.make('edge-front', ['edge.test'])
    const client = certs.make('client', ['client.test'], { subject: '/O=Acme/CN=billing' })
    const foreign = new CertificateMaker().make('foreign-client', ['client.test'])
    const front = (mode: 'require' | 'request') =>
      startNginx([node], undefined, {
        tls: { certFile: edgeCert.certFile, keyFile: edgeCert.keyFile },
        clientCertificates: { caFile: certs.caFile, mode }
      })
    const [required, requested] = [await front('require'), await front('request')]
    const subject = (url: string, files: Made | null, forged = false) =>
      curl('edge.test', new URL(url).port, '/_eapi/ELASTIC_HTTP/testkit/misc/certificate', [
        ...(files === null ? [] : ['--cert', files.certFile, '--key', files.keyFile]),
        ...['-H', 'Content-Type: application/json', '-H', 'X-PLATFORM-API-ID: RMC', '-d', '[]'],
        ...(forged ? ['-H', 'X-PLATFORM-Certificate-Subject: CN=root'] : []),
        ...['-w', ' %{http_code}']
      ])
    try {
      assert.equal(await subject(required.url, client), '"CN=billing,O=Acme" 200')
      assert.equal(await subject(required.url, client, true), '"CN=billing,O=Acme" 200', 'a forged one replaced')
      assert.match(await subject(required.url, null), /"code":"CLIENT_CERTIFICATE_REQUIRED".* 403$/)
      assert.match(await subject(required.url, foreign), /does not verify.*"code":"CLIENT_CERTIFICATE_REQUIRED".* 403$/)
      assert.equal(await subject(requested.url, null, true), '"" 200', 'none, and a forged one dropped')
      assert.equal(await subject(requested.url, client), '"CN=billing,O=Acme" 200')
      // The subject nginx writes is the one the gateway's own listener writes (parsePeerCertificate).
      const own = parsePeerCertificate(readFileSync(client.certFile, 'utf8'))!
      assert.equal(own.subject, 'CN=billing,O=Acme')
    } finally {
      await required.stop()
      await requested.stop()
      await platform.stop(0, 0)
    }
  })
})
