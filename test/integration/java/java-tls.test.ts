// The Java host over mutual TLS as a remote host: `microservice host` of a Java package with `--listen
// tls:… --tls-cert --tls-key --tls-ca`, as on another machine, and a platform that lists it in
// MICROSERVICES.remote with its CA and the gateway's own certificate (as test/integration/security/internal-tls.test.ts
// does for the Node host).
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Platform } from '../../../src/platform/platform'
import { ROOT } from '../../helpers/root'
import { builtPackage, hostClassPath } from '../../helpers/java/java-package'
import { TEST_PLATFORM_OPTIONS, post, testConfig, until, type Json } from '../../helpers/platform'
import { startRemoteHost, stopRemoteHost, type RemoteHost } from '../../helpers/processes/remote-host'
import { CertificateMaker, type Made } from '../../helpers/inputs/certificates'

const SECRET_ENV = 'IGW_TEST_JAVA_TLS_SECRET'
const SECRET = 'a secret for the Java TLS test'
const RMC = { 'Content-Type': 'application/json', 'X-PLATFORM-API-ID': 'RMC' }
const scratch = mkdtempSync(join(tmpdir(), 'java-tls-'))

let certs: CertificateMaker
let hostCert: Made
let gatewayCert: Made
let javaDir: string
let tlsHost: RemoteHost

async function platformFor(tls: { [k: string]: Json }): Promise<{ platform: Platform; url: string }> {
  process.env[SECRET_ENV] = SECRET
  const platform = new Platform(
    testConfig({
      MICROSERVICES: {
        remote: [{ name: 'java-example', host: '127.0.0.1', port: tlsHost.port, secretEnv: SECRET_ENV, tls }]
      }
    }),
    TEST_PLATFORM_OPTIONS
  )
  return { platform, url: `http://127.0.0.1:${await platform.start([])}` }
}

describe('the Java host over mutual TLS', () => {
  before(async () => {
    certs = new CertificateMaker()
    hostCert = certs.make('host', ['java.internal'])
    gatewayCert = certs.make('gateway', ['gateway.internal'])
    hostClassPath()
    javaDir = builtPackage(join(ROOT, 'examples', 'java-example'), join(scratch, 'java-example'))
    tlsHost = await startRemoteHost(javaDir, SECRET_ENV, SECRET, {
      scheme: 'tls',
      args: ['--tls-cert', hostCert.certFile, '--tls-key', hostCert.keyFile, '--tls-ca', certs.caFile]
    })
  })
  after(async () => {
    await stopRemoteHost(tlsHost)
    rmSync(scratch, { recursive: true, force: true })
  })

  test('calls answered through a platform that presents its certificate', async () => {
    assert.match(tlsHost.out(), /microservice java-example 1\.0\.0 listening on tls:127\.0\.0\.1:\d+ \(pid \d+/)
    const p = await platformFor({
      caFile: certs.caFile,
      certFile: gatewayCert.certFile,
      keyFile: gatewayCert.keyFile,
      serverName: 'java.internal'
    })
    try {
      await until(() => p.platform.manager.statusOf('java-example')?.unavailable === null, 30000, 'connected')
      for (let k = 0; k < 10; k++) {
        const r = await post(p.url, '/java-example/calculator/multiplyInts', `[${k + 6},7]`, RMC)
        assert.deepEqual([r.status, r.text], [200, String((k + 6) * 7)])
      }
    } finally {
      await p.platform.stop(0, 0)
    }
  })

  test('a gateway without its own certificate is refused, with the reason in status', async () => {
    const p = await platformFor({ caFile: certs.caFile, serverName: 'java.internal' })
    try {
      const instance = (): { state: string; message: string } | undefined =>
        p.platform.manager.statusOf('java-example')?.instances[0]
      await until(() => /refused/.test(instance()?.message ?? ''), 30000, `refused: ${JSON.stringify(instance())}`)
      assert.match(instance()!.message, /the handshake was refused \(TLS: /)
      assert.equal((await post(p.url, '/java-example/calculator/multiplyInts', '[6,7]', RMC)).status, 503)
    } finally {
      await p.platform.stop(0, 0)
    }
  })
})
