// Remote instances in plain sight: microservice hosts started with the documented command
// (`microservice host DIR --listen … --secret-env …`, as on another machine), two versions of one
// microservice and one host with another secret, behind a platform that lists them in
// MICROSERVICES.remote. Status, the CLI, /status, /metrics and /readyz show them; the refused
// handshake says why; DISPATCH.servingVersions "newest" sends calls only to the newest version.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { promisify } from 'node:util'
import { Platform } from '../../../src/platform/platform'
import { TEST_PLATFORM_OPTIONS, exampleAt, post, testConfig, until } from '../../helpers/platform'
import { startRemoteHost, stopRemoteHost, type RemoteHost } from '../../helpers/processes/remote-host'

const CLI = join(__dirname, '..', '..', '..', '..', 'bin', 'microservice')
const SECRET_ENV = 'IGW_TEST_REMOTE_SECRET'
const SECRET = 'a shared secret for the remote-instance test'

type Host = RemoteHost

/** `microservice host DIR --listen tcp:127.0.0.1:PORT --secret-env …`, waited for until it listens. */
function host(dir: string, secret: string): Promise<Host> {
  return startRemoteHost(dir, SECRET_ENV, secret)
}

const stopHost = stopRemoteHost

async function platformWith(
  hosts: Host[],
  servingVersions: 'all' | 'newest'
): Promise<{ platform: Platform; url: string }> {
  process.env[SECRET_ENV] = SECRET
  const platform = new Platform(
    testConfig({
      DISPATCH: { servingVersions },
      ADMIN: { readyRequires: ['example'] },
      MICROSERVICES: {
        remote: hosts.map((h) => ({ name: 'example', host: '127.0.0.1', port: h.port, secretEnv: SECRET_ENV }))
      }
    }),
    TEST_PLATFORM_OPTIONS
  )
  const port = await platform.start([])
  // Every use has two versions among its hosts: ready once both are connected.
  await until(() => (platform.directory.get('example')?.versions.length ?? 0) === 2, 15000, 'both versions connected')
  return { platform, url: `http://127.0.0.1:${port}` }
}

describe('remote instances: listed, measured, and honoured by readiness', () => {
  let v1: Host
  let v2: Host
  let stranger: Host
  let p: { platform: Platform; url: string }
  const id = (h: Host): string => `example@127.0.0.1:${h.port}`

  before(async () => {
    ;[v1, v2, stranger] = await Promise.all([
      host(exampleAt('1.0.0'), SECRET),
      host(exampleAt('1.1.0'), SECRET),
      host(exampleAt('1.0.0'), 'another secret')
    ])
    p = await platformWith([v1, v2, stranger], 'all')
  })
  after(async () => {
    await p?.platform.stop()
    await Promise.all([v1, v2, stranger].map(stopHost))
  })

  test('calls are answered by the remote instances', async () => {
    for (let k = 0; k < 10; k++) {
      const r = await post(p.url, '/example/calculator/multiply', `{"a":${k},"b":7}`)
      assert.deepEqual([r.status, r.text], [200, `{"result":${k * 7}}`])
    }
  })

  test('status lists each remote instance with its version, both versions, and why the stranger is not connected', () => {
    const st = p.platform.manager.statusOf('example')!
    assert.deepEqual(st.versions, ['1.1.0', '1.0.0'])
    assert.equal(st.version, '1.1.0')
    assert.equal(st.unavailable, null)
    const byId = new Map(st.instances.map((i) => [i.id, i]))
    assert.deepEqual(
      [v1, v2].map((h) => {
        const i = byId.get(id(h))!
        return [i.remote, i.state, i.version, i.endpoint]
      }),
      [
        [true, 'connected', '1.0.0', `127.0.0.1:${v1.port}`],
        [true, 'connected', '1.1.0', `127.0.0.1:${v2.port}`]
      ]
    )
    const s = byId.get(id(stranger))!
    assert.equal(s.state, 'disconnected')
    assert.match(
      s.message,
      /the handshake was refused \(it closed the connection after our Hello: it holds a different shared secret\)/
    )
    assert.match(stranger.out(), /refused a connection from .*: the Hello does not prove the shared secret/)
  })

  test('the CLI, /status and /metrics show them', async () => {
    const configFile = join(mkdtempSync(join(tmpdir(), 'remote-cli-')), 'platform.json')
    writeFileSync(configFile, JSON.stringify({ PLATFORM: { controlSocket: p.platform.config.platform.controlSocket } }))
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'list'], {
      env: { ...process.env, PLATFORM_CONFIG: configFile }
    })
    assert.match(
      stdout,
      /^example 1\.1\.0: available, 0 calls in flight \(instances of 2 versions: 1\.1\.0, 1\.0\.0\)$/m
    )
    assert.match(stdout, new RegExp(`^  ${id(v1)}: remote, connected, version 1\\.0\\.0$`, 'm'))
    assert.match(stdout, new RegExp(`^  ${id(stranger)}: remote, disconnected - .*different shared secret`, 'm'))
    const admin = `http://127.0.0.1:${p.platform.adminPort}`
    const status = (await (await fetch(`${admin}/status`)).json()) as {
      microservices: Array<{ name: string; instances: unknown[] }>
    }
    assert.equal(status.microservices.find((m) => m.name === 'example')?.instances.length, 3)
    const metrics = await (await fetch(`${admin}/metrics`)).text()
    assert.match(metrics, /^igw_microservice_versions\{microservice="example"\} 2$/m)
    assert.match(
      metrics,
      new RegExp(
        `^igw_instance_up\\{microservice="example",instance="${id(v2)}",state="connected",remote="true",version="1.1.0"\\} 1$`,
        'm'
      )
    )
    assert.match(
      metrics,
      new RegExp(
        `^igw_instance_up\\{microservice="example",instance="${id(stranger)}",state="disconnected",remote="true",version=""\\} 0$`,
        'm'
      )
    )
  })

  test('/readyz follows ADMIN.readyRequires for a microservice served only remotely', async () => {
    const readyz = async (): Promise<{ status: number; reason?: string }> => {
      const r = await fetch(`http://127.0.0.1:${p.platform.adminPort}/readyz`)
      return { status: r.status, ...((await r.json()) as { reason?: string }) }
    }
    assert.equal((await readyz()).status, 200)
    await Promise.all([stopHost(v1), stopHost(v2)])
    await until(async () => (await readyz()).status === 503, 10000, '/readyz 503')
    assert.match(
      (await readyz()).reason ?? '',
      /^required microservice example is unavailable: microservice 'example' is not connected/
    )
  })
})

describe('DISPATCH.servingVersions "newest": only the newest connected version takes calls', () => {
  let v1: Host
  let v2: Host
  let p: { platform: Platform; url: string }
  before(async () => {
    ;[v1, v2] = await Promise.all([host(exampleAt('1.0.0'), SECRET), host(exampleAt('1.10.0'), SECRET)])
    p = await platformWith([v1, v2], 'newest')
  })
  after(async () => {
    await p?.platform.stop()
    await Promise.all([v1, v2].map(stopHost))
  })

  test('1.10.0 serves, 1.0.0 waits; when 1.10.0 goes, 1.0.0 serves', async () => {
    const group = p.platform.directory.get('example')!
    assert.deepEqual(group.versions, ['1.10.0', '1.0.0'])
    assert.equal(group.isServing(`example@127.0.0.1:${v2.port}`), true)
    assert.equal(group.isServing(`example@127.0.0.1:${v1.port}`), false)
    assert.equal((await post(p.url, '/example/calculator/multiply', '{"a":2,"b":3}')).status, 200)
    await stopHost(v2)
    await until(() => group.isServing(`example@127.0.0.1:${v1.port}`), 10000, '1.0.0 serving')
    assert.equal((await post(p.url, '/example/calculator/multiply', '{"a":2,"b":3}')).text, '{"result":6}')
  })
})
