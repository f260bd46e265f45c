// The internal protocol over mutual TLS between hosts: `microservice host DIR --listen tls:… --tls-cert
// --tls-key --tls-ca` as on another machine, a platform that lists it in MICROSERVICES.remote with its
// CA and the gateway's own certificate. A relay in between records what crosses the wire (the capture).
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createServer, connect, type Server, type Socket } from 'node:net'
import { copyFileSync, mkdtempSync, renameSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Platform } from '../../../src/platform/platform'
import { EXAMPLE_DIR, TEST_PLATFORM_OPTIONS, post, testConfig, until, type Json } from '../../helpers/platform'
import { startRemoteHost, stopRemoteHost, type RemoteHost } from '../../helpers/processes/remote-host'
import { CertificateMaker, presented, type Made } from '../../helpers/inputs/certificates'

const CLI = join(__dirname, '..', '..', '..', '..', 'bin', 'microservice')
const SECRET_ENV = 'IGW_TEST_TLS_SECRET'

type Host = RemoteHost
const SECRET = 'a secret for the TLS test'

/** A host of the example: over TLS with `args` (its --tls-* files), over plain TCP without. */
function host(args: string[], more: { env?: NodeJS.ProcessEnv; port?: number } = {}): Promise<Host> {
  return startRemoteHost(EXAMPLE_DIR, SECRET_ENV, SECRET, { scheme: args.length > 0 ? 'tls' : 'tcp', args, ...more })
}

/** Copies of a pair under fixed names in a directory of their own, for a test to renew in place. */
function live(pair: Made): Made {
  const dir = mkdtempSync(join(tmpdir(), 'live-tls-'))
  const out = { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key'), caFile: pair.caFile }
  renew(out, pair)
  return out
}

/** Renews `at` with `pair` as cert-manager does: each file written aside, then renamed over. */
function renew(at: Made, pair: Made): void {
  for (const [from, to] of [
    [pair.certFile, at.certFile],
    [pair.keyFile, at.keyFile]
  ] as const) {
    copyFileSync(from, `${to}.new`)
    renameSync(`${to}.new`, to)
  }
}

const stopHost = stopRemoteHost

/** A TCP relay to `port` that keeps every byte it carries, both ways: what a capture on the wire sees. */
async function relay(port: number): Promise<{ port: number; wire: () => Buffer; cut: () => void; close: () => void }> {
  const chunks: Buffer[] = []
  const sockets = new Set<Socket>()
  const server: Server = createServer((a) => {
    const b = connect(port, '127.0.0.1')
    for (const s of [a, b]) {
      sockets.add(s)
      s.on('error', () => {})
      s.on('close', () => (a.destroy(), b.destroy()))
    }
    a.on('data', (d: Buffer) => (chunks.push(d), b.write(d)))
    b.on('data', (d: Buffer) => (chunks.push(d), a.write(d)))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const at = (server.address() as { port: number }).port
  return {
    port: at,
    wire: () => Buffer.concat(chunks),
    /** Every connection through it dropped, as a network fault would; it goes on listening. */
    cut: () => {
      for (const s of sockets) s.destroy()
      sockets.clear()
    },
    close: () => {
      for (const s of sockets) s.destroy()
      server.close()
    }
  }
}

let certs: CertificateMaker
let stranger: CertificateMaker
let hostCert: Made
let gatewayCert: Made
let strangerHost: Made

before(() => {
  certs = new CertificateMaker()
  stranger = new CertificateMaker()
  hostCert = certs.make('host', ['example.internal'])
  gatewayCert = certs.make('gateway', ['gateway.internal'])
  strangerHost = stranger.make('stranger', ['example.internal'])
})

async function platformFor(remote: Array<{ [k: string]: Json }>): Promise<{ platform: Platform; url: string }> {
  process.env[SECRET_ENV] = SECRET
  const platform = new Platform(
    testConfig({
      MICROSERVICES: {
        remote: remote.map((r) => ({ name: 'example', host: '127.0.0.1', secretEnv: SECRET_ENV, ...r }))
      }
    }),
    TEST_PLATFORM_OPTIONS
  )
  return { platform, url: `http://127.0.0.1:${await platform.start([])}` }
}

const mutual = (): { [k: string]: Json } => ({
  caFile: certs.caFile,
  certFile: gatewayCert.certFile,
  keyFile: gatewayCert.keyFile,
  serverName: 'example.internal'
})

describe('the internal protocol over TLS between hosts', () => {
  let tlsHost: Host
  let plainHost: Host
  before(async () => {
    tlsHost = await host(['--tls-cert', hostCert.certFile, '--tls-key', hostCert.keyFile, '--tls-ca', certs.caFile])
    plainHost = await host([])
  })
  after(async () => {
    await stopHost(tlsHost)
    await stopHost(plainHost)
  })

  test('mutual TLS: calls answered, and nothing of them readable on the wire (plain TCP, as a check, is)', async () => {
    assert.match(tlsHost.out(), /listening on tls:127\.0\.0\.1:/)
    const wires: Record<string, Buffer> = {}
    for (const [kind, h, tls] of [
      ['tls', tlsHost, mutual()],
      ['plain', plainHost, null]
    ] as const) {
      const capture = await relay(h.port)
      const p = await platformFor([{ port: capture.port, ...(tls !== null ? { tls } : {}) }])
      try {
        await until(() => p.platform.manager.statusOf('example')?.unavailable === null, 15000, `${kind} connected`)
        for (let k = 0; k < 20; k++) {
          const r = await post(p.url, '/example/calculator/multiply', `{"a":${k + 31337},"b":2}`)
          assert.deepEqual([r.status, r.text], [200, `{"result":${(k + 31337) * 2}}`])
        }
        wires[kind] = capture.wire()
      } finally {
        await p.platform.stop(0, 0)
        capture.close()
      }
    }
    // The method's name, an argument and an answer: in the clear over TCP, nowhere over TLS.
    for (const text of ['multiply', '31337', '62674'])
      assert.ok(wires.plain!.includes(text), `the capture sees ${text} over plain TCP`)
    for (const text of ['multiply', 'calculator', '31337', '62674'])
      assert.ok(!wires.tls!.includes(text), `${text} readable over TLS`)
    assert.ok(wires.tls!.length > 2000, 'the TLS capture carried the calls')
  })

  test('refused with the reason in status: a host whose certificate no trusted CA signed; a gateway without its own certificate', async () => {
    const untrusted = await host(['--tls-cert', strangerHost.certFile, '--tls-key', strangerHost.keyFile])
    const p = await platformFor([
      { port: untrusted.port, tls: mutual() },
      { port: tlsHost.port, tls: { caFile: certs.caFile, serverName: 'example.internal' } },
      { port: tlsHost.port + 0, host: 'localhost', tls: { caFile: certs.caFile } }
    ])
    try {
      const byId = (): Map<string, { state: string; message: string }> =>
        new Map((p.platform.manager.statusOf('example')?.instances ?? []).map((i) => [i.id, i]))
      const refused = (id: string): boolean => /refused/.test(byId().get(id)?.message ?? '')
      const ids = [
        `example@127.0.0.1:${untrusted.port}`,
        `example@127.0.0.1:${tlsHost.port}`,
        `example@localhost:${tlsHost.port}`
      ]
      await until(() => ids.every(refused), 15000, `all refused: ${JSON.stringify([...byId()])}`)
      const [bad, noCert, wrongName] = ids.map((id) => byId().get(id)!)
      assert.equal(bad!.state, 'disconnected')
      assert.match(
        bad!.message,
        /the handshake was refused \(TLS: (UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY): /
      )
      assert.match(noCert!.message, /the handshake was refused \(TLS: ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED/)
      assert.match(wrongName!.message, /the handshake was refused \(TLS: ERR_TLS_CERT_ALTNAME_INVALID: .*localhost/)
      const r = await post(p.url, '/example/calculator/multiply', '{"a":1,"b":2}')
      assert.equal(r.status, 503)
    } finally {
      await p.platform.stop(0, 0)
      await stopHost(untrusted)
    }
  })

  test('renewed files on both sides, without a restart: the host serves its new certificate, the gateway presents its new one', async () => {
    const hostFiles = live(hostCert)
    const gatewayFiles = live(gatewayCert)
    const args = ['--tls-cert', hostFiles.certFile, '--tls-key', hostFiles.keyFile, '--tls-ca', certs.caFile]
    const env = { MICROSERVICE_TLS_RELOAD_MS: '100' }
    const renewing = await host(args, { env })
    const wire = await relay(renewing.port)
    const p = await platformFor([
      { port: wire.port, tls: { ...mutual(), certFile: gatewayFiles.certFile, keyFile: gatewayFiles.keyFile } }
    ])
    const id = `example@127.0.0.1:${wire.port}`
    const status = (): { state: string; message: string } | undefined =>
      p.platform.manager.statusOf('example')?.instances.find((i) => i.id === id)
    try {
      await until(() => status()?.state === 'connected', 15000, 'connected')
      const before = (await presented(renewing.port, 'example.internal')).fingerprint
      renew(hostFiles, certs.make('host-next', ['example.internal'], { days: 60 }))
      await until(
        async () => (await presented(renewing.port, 'example.internal')).fingerprint !== before,
        10000,
        'the host serves its renewed certificate'
      )
      assert.match(renewing.out(), /renewed TLS files served to new connections/)
      assert.equal((await post(p.url, '/example/calculator/multiply', '{"a":4,"b":5}')).text, '{"result":20}')
      // The gateway's pair renewed with one the host does not trust: the next connection (after a
      // network fault) presents it and is refused, which only the renewed pair can cause.
      renew(gatewayFiles, stranger.make('gateway-next', ['gateway.internal']))
      wire.cut()
      await until(() => /refused/.test(status()?.message ?? ''), 15000, `refused: ${JSON.stringify(status())}`)
      assert.match(
        status()!.message,
        /TLS: it closed the connection right after the TLS handshake, before a word: it does not take this gateway's certificate/
      )
    } finally {
      await p.platform.stop(0, 0)
      wire.close()
      await stopHost(renewing)
    }
  })

  test('the host refuses a TLS listen without its files, and a pair that does not match, with the reason', async () => {
    const run = (args: string[]): Promise<{ code: number | null; out: string }> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [CLI, 'host', EXAMPLE_DIR, '--listen', 'tls:127.0.0.1:0', ...args], {
          stdio: ['ignore', 'pipe', 'pipe']
        })
        let out = ''
        child.stdout.on('data', (d: Buffer) => (out += d.toString()))
        child.stderr.on('data', (d: Buffer) => (out += d.toString()))
        child.on('exit', (code) => resolve({ code, out }))
      })
    const none = await run([])
    assert.notEqual(none.code, 0)
    assert.match(none.out, /TLS needs --tls-cert and --tls-key/)
    const mismatch = await run(['--tls-cert', hostCert.certFile, '--tls-key', gatewayCert.keyFile])
    assert.notEqual(mismatch.code, 0)
    assert.match(mismatch.out, /MICROSERVICE_TLS_CERT_FILE and _KEY_FILE: .*key values mismatch/)
  })
})
