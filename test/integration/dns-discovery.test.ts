// Instances found in DNS, as a Kubernetes headless Service publishes ready pods: a real DNS server
// (dnsmasq, Debian's package) answers for example.ms.test, microservice hosts listen on 127.0.0.2-6
// (one address each, as pods have), and the records change under steady load (16 keep-alive
// clients): scale 1 → 3 → 1, a pod replaced by one at a new address, a pod killed with SIGKILL. Every
// call is checked; the counts are what discovery promises: nothing lost when an address leaves DNS
// before its host stops, only the calls a killed host held fail, each answered.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Resolver } from 'node:dns/promises'
import { Platform } from '../../src/platform/platform'
import { EXAMPLE_DIR, TEST_PLATFORM_OPTIONS, testConfig, until } from '../helpers/platform'
import { freePort } from '../helpers/nginx'
import { CLIENTS, failures, underLoad } from '../helpers/load'

const ROOT = join(__dirname, '..', '..', '..')
const CLI = join(ROOT, 'bin', 'microservice')
const SECRET_ENV = 'IGW_TEST_DISCOVERY_SECRET'
const NAME = 'example.ms.test'

interface Host {
  child: ChildProcess
  address: string
}

describe('DNS discovery under load: scale 1 → 3 → 1, a pod replaced, a pod killed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dns-discovery-'))
  const hostsFile = join(dir, 'hosts')
  let dns: ChildProcess
  let port = 0
  let platform: Platform
  let edge = ''
  const hosts = new Map<string, Host>()

  /** The addresses DNS answers for the name (dnsmasq reads its hosts file again on SIGHUP). */
  function publish(addresses: string[]): void {
    writeFileSync(hostsFile, addresses.map((a) => `${a} ${NAME}\n`).join(''))
    dns.kill('SIGHUP')
  }

  async function startHost(address: string): Promise<void> {
    const child = spawn(
      process.execPath,
      [CLI, 'host', join(dir, 'example'), '--listen', `tcp:${address}:${port}`, '--secret-env', SECRET_ENV],
      {
        env: { ...process.env },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true // the command and its host process in a group of their own: a signal reaches both
      }
    )
    let out = ''
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
    await until(() => out.includes('listening on'), 15000, `the host on ${address}: ${out}`)
    hosts.set(address, { child, address })
  }

  function stopHost(address: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const h = hosts.get(address)!
    hosts.delete(address)
    return new Promise((resolve) => {
      if (h.child.exitCode !== null) return resolve()
      h.child.once('exit', () => resolve())
      process.kill(-h.child.pid!, signal)
    })
  }

  const found = (): string[] => platform.discovery.instances('example').sort()
  const registered = (): number => platform.directory.get('example')?.instances.size ?? 0
  const id = (address: string): string => `example@${address}:${port}`

  before(async () => {
    execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'dnsmasq:dnsmasq-base'], { stdio: 'inherit' })
    process.env[SECRET_ENV] = 'the discovery test secret'
    cpSync(EXAMPLE_DIR, join(dir, 'example'), { recursive: true })
    port = await freePort()
    const dnsPort = await freePort()
    // The first answer is in the file before dnsmasq starts (a SIGHUP before it has its handlers would end it).
    writeFileSync(hostsFile, `127.0.0.2 ${NAME}\n`)
    dns = spawn(
      'dnsmasq',
      [
        '--keep-in-foreground',
        `--port=${dnsPort}`,
        '--listen-address=127.0.0.1',
        '--bind-interfaces',
        '--no-resolv',
        '--no-hosts',
        `--addn-hosts=${hostsFile}`,
        '--local-ttl=0',
        `--pid-file=${join(dir, 'dnsmasq.pid')}`,
        '--user=root'
      ],
      { stdio: 'ignore' }
    )
    await startHost('127.0.0.2')
    const resolver = new Resolver()
    resolver.setServers([`127.0.0.1:${dnsPort}`])
    await until(async () => (await resolver.resolve4(NAME).catch(() => [])).length === 1, 10000, 'dnsmasq answering')
    platform = new Platform(
      testConfig({
        MICROSERVICES: {
          discovery: [{ name: 'example', dns: NAME, port, secretEnv: SECRET_ENV, intervalMs: 300 }],
          dnsServers: [`127.0.0.1:${dnsPort}`]
        }
      }),
      TEST_PLATFORM_OPTIONS
    )
    await platform.start([])
    edge = `http://127.0.0.1:${platform.edgePort}`
    await until(() => platform.directory.get('example')?.unavailableReason() === null, 15000, 'example served').catch(
      (err: Error) => {
        throw new Error(`${err.message}: ${JSON.stringify(platform.manager.statusOf('example'))}`)
      }
    )
  })

  after(async () => {
    await platform?.stop()
    await Promise.all([...hosts.keys()].map((a) => stopHost(a, 'SIGKILL')))
    dns?.kill('SIGKILL')
  })

  test('scale 1 → 3 → 1: new addresses take calls, removed ones finish theirs first; nothing fails', async (t) => {
    await Promise.all([startHost('127.0.0.3'), startHost('127.0.0.4')])
    const tally = await underLoad(edge, async () => {
      publish(['127.0.0.2', '127.0.0.3', '127.0.0.4'])
      await until(() => found().length === 3, 10000, 'three found')
      await until(() => platform.directory.get('example')!.isServing(id('127.0.0.4')), 10000, 'the new ones serving')
      await new Promise((r) => setTimeout(r, 500))
      publish(['127.0.0.2'])
      await until(() => registered() === 1, 10000, 'the two retired and removed')
      await Promise.all([stopHost('127.0.0.3'), stopHost('127.0.0.4')])
    })
    t.diagnostic(`${tally.ok} calls, failed: ${JSON.stringify(failures(tally))}`)
    assert.deepEqual(failures(tally), {})
    assert.equal(tally.wrong, 0)
    assert.deepEqual(found(), [id('127.0.0.2')])
  })

  test('a pod replaced: the new address is found, the old one leaves DNS, then stops; nothing fails', async () => {
    await startHost('127.0.0.5')
    const tally = await underLoad(edge, async () => {
      publish(['127.0.0.5'])
      await until(() => registered() === 1 && found()[0] === id('127.0.0.5'), 10000, 'replaced')
      await stopHost('127.0.0.2')
    })
    assert.deepEqual(failures(tally), {})
    assert.ok(tally.ok > 100, `${tally.ok} calls`)
  })

  test('a pod killed with SIGKILL: only the calls it held fail, each answered; the survivor serves on', async (t) => {
    await startHost('127.0.0.6')
    publish(['127.0.0.5', '127.0.0.6'])
    await until(() => platform.directory.get('example')!.isServing(id('127.0.0.6')), 10000, 'two serving')
    const tally = await underLoad(
      edge,
      async () => {
        await stopHost('127.0.0.6', 'SIGKILL')
        publish(['127.0.0.5'])
        await until(() => registered() === 1, 10000, 'the killed one removed')
      },
      1000
    )
    const failed = failures(tally)
    t.diagnostic(`${tally.ok} calls answered 200, failed: ${JSON.stringify(failed)}`)
    assert.deepEqual(
      Object.keys(failed).filter((k) => k !== '502 BACKEND_CONNECTION_LOST'),
      [],
      JSON.stringify(failed)
    )
    assert.ok((failed['502 BACKEND_CONNECTION_LOST'] ?? 0) <= CLIENTS, JSON.stringify(failed))
    assert.ok(tally.ok > 100)
  })
})
