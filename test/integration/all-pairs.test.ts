// time limit: 900 s: eleven cells, each a platform started, deployed, called, measured, reloaded, redeployed, stopped
// Every feature with every other: the platform's options combined all-pairs (covertable, its seed pinned so
// a failure repeats), each combination run as an operator runs it: a fresh home, `node dist/src/main.js`
// configured by a file or by the environment alone, the example deployed in its runtime (or served by
// remote hosts), the README's calls through the entry the cell uses, `microservice bench`, a reload
// under load, version 2 deployed under load, and SIGTERM with a call in flight (docs/development.md,
// "The all-pairs matrix").
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { join } from 'node:path'
import { tmpdir, userInfo } from 'node:os'
import { make, sorters } from 'covertable'
import { Agent } from 'undici'
import { EXAMPLE_DIR, exampleAt, until, type Json } from '../helpers/platform'
import { CLI } from '../helpers/deploy'
import { ROOT } from '../helpers/root'
import { freePort, startNginx, type RunningNginx } from '../helpers/nginx'
import { startRedis, type RunningRedis } from '../helpers/redis'
import { startRemoteHost, stopRemoteHost, type RemoteHost } from '../helpers/remote-host'
import { CertificateMaker, type Made } from '../helpers/certificates'
import { builtPackage, hostClassPath } from '../helpers/java-package'
import { sequences } from '../helpers/spec-calls'

/** The options an operator combines, each with the values a production platform runs. */
const FACTORS = {
  threads: [1, 2],
  tls: ['off', 'on', 'client-certs'],
  limits: ['none', 'local', 'cluster'],
  admission: ['off', 'on'],
  runtime: ['js', 'java'],
  where: ['beside', 'remote-tcp', 'remote-tls'],
  config: ['file', 'env'],
  entry: ['direct', 'nginx']
}
type Factor = keyof typeof FACTORS
interface Cell {
  threads: number
  tls: string
  limits: string
  admission: string
  runtime: string
  where: string
  config: string
  entry: string
}

/**
 * Client certificates are required by the generated nginx edge: this host's uWebSockets.js build cannot
 * require them on the gateway's own listener (docs/security.md), so that value never meets `direct`.
 */
const possible = (c: Partial<Cell>): boolean => !(c.tls === 'client-certs' && c.entry === 'direct')
/** The generator's seed: another one may need more cells or miss a pair (the first test says which). */
const SEED = 'matrix-6'
const CELLS = make(FACTORS, { sorter: sorters.hash, seed: SEED, preFilter: possible }) as unknown as Cell[]
const label = (c: Cell): string =>
  `threads ${c.threads}, tls ${c.tls}, limits ${c.limits}, admission ${c.admission}, ${c.runtime} ${c.where}, ` +
  `config ${c.config}, entry ${c.entry}`

const SECRET_ENV = 'IGW_ALL_PAIRS_SECRET'
const SECRET = 'the shared secret of the all-pairs hosts'
const MAIN = join(ROOT, 'dist', 'src', 'main.js')
const scratch = mkdtempSync(join(tmpdir(), 'all-pairs-'))

test(`every pair of values meets in a cell (${CELLS.length} cells, seed ${SEED})`, () => {
  const factors = Object.keys(FACTORS) as Factor[]
  const missing: string[] = []
  for (const [i, f] of factors.entries())
    for (const g of factors.slice(i + 1))
      for (const a of FACTORS[f])
        for (const b of FACTORS[g]) {
          const pair = { [f]: a, [g]: b } as Partial<Cell>
          const met = CELLS.some((c) => c[f] === a && c[g] === b)
          if (possible(pair) !== met) missing.push(`${f}=${a} with ${g}=${b}${met ? ' (impossible, yet met)' : ''}`)
        }
  assert.deepEqual(missing, [])
  assert.ok(CELLS.length <= 12, `${CELLS.length} cells: CI's time holds about twelve`)
})

/** What every cell shares: certificates, one Redis, the Java package compiled once, both versions of each example. */
interface Shared {
  certs: CertificateMaker
  gateway: Made
  edge: Made
  client: Made
  host: Made
  hostClient: Made
  redis: RunningRedis | null
  packages: Record<string, { name: string; v1: string; v2: string }>
}
let shared: Shared

before(async () => {
  const certs = new CertificateMaker()
  let java = { name: 'java-example', v1: '', v2: '' }
  if (CELLS.some((c) => c.runtime === 'java')) {
    hostClassPath()
    const v1 = builtPackage(join(ROOT, 'examples', 'java-example'), join(scratch, 'java', 'java-example'))
    java = { name: 'java-example', v1, v2: exampleAt('2.0.0', v1) }
  }
  shared = {
    certs,
    gateway: certs.make('gateway', ['gateway.test']),
    edge: certs.make('edge', ['edge.test']),
    client: certs.make('client', ['client.test'], { subject: '/O=Matrix/CN=operator' }),
    host: certs.make('host', ['host.test']),
    hostClient: certs.make('host-client', ['gateway.internal']),
    redis: CELLS.some((c) => c.limits === 'cluster') ? await startRedis() : null,
    packages: { js: { name: 'example', v1: EXAMPLE_DIR, v2: exampleAt('2.0.0') }, java }
  }
})
after(async () => {
  await shared?.redis?.stop()
  rmSync(scratch, { recursive: true, force: true })
})

/** Where the cell's clients call: the gateway itself or the nginx edge, with what TLS needs. */
interface Entry {
  origin: string
  /** Before /{microservice}/{service}/{method}: the edge's /_eapi/ELASTIC_HTTP, or nothing. */
  prefix: string
  tls: { ca: Buffer; servername: string; cert?: Buffer; key?: Buffer } | null
  agent: Agent
  /** `microservice bench`'s options for this entry. */
  benchArgs: string[]
}

/** What `microservice status NAME --json` says, in the parts a cell reads. */
interface Status {
  name: string
  versions: string[]
  instances: Array<{ endpoint: string; version: string | null }>
}

interface Answer {
  status: number
  text: string
}

async function call(entry: Entry, path: string, body: string, headers: Record<string, string>): Promise<Answer> {
  const r = await entry.agent.request({
    origin: entry.origin,
    path: entry.prefix + path,
    method: 'POST',
    headers,
    body
  })
  return { status: r.statusCode, text: await r.body.text() }
}

/** Keep-alive callers of one method until stopped: the 200s, the other answers by status and code, what failed. */
function load(entry: Entry, path: string, body: string, callers = 4): { stop(): Promise<Load> } {
  let stopped = false
  const got: Load = { ok: 0, others: {}, failed: [] }
  const loops = Array.from({ length: callers }, async () => {
    while (!stopped) {
      try {
        const a = await call(entry, path, body, { 'content-type': 'application/json' })
        if (a.status === 200) got.ok++
        else {
          let problem: { code?: string; detail?: string } = {}
          try {
            problem = JSON.parse(a.text) as typeof problem
          } catch {
            // not a problem document: its first bytes say what it is
          }
          const key = `${a.status} ${problem.code ?? a.text.slice(0, 80)}`
          got.others[key] = { count: (got.others[key]?.count ?? 0) + 1, detail: problem.detail ?? '' }
        }
      } catch (err) {
        got.failed.push(String(err))
      }
    }
  })
  return {
    async stop() {
      stopped = true
      await Promise.all(loops)
      return got
    }
  }
}

/** What the load's callers got. */
interface Load {
  ok: number
  /** Answers other than 200, by status and problem code, with the first one's detail. */
  others: Record<string, { count: number; detail: string }>
  failed: string[]
}

/** Every call of the load answered 200, and there were some. */
function allAnswered(got: Load): void {
  assert.deepEqual({ others: got.others, failed: got.failed }, { others: {}, failed: [] })
  assert.ok(got.ok > 20, `${got.ok} calls under load`)
}

/** A call whose body is half sent: in flight until `finish` sends the rest. */
function halfSent(entry: Entry, path: string, body: string): { finish(): void; answer: Promise<Answer> } {
  const url = new URL(entry.prefix + path, entry.origin)
  const half = Math.floor(body.length / 2)
  let req: ClientRequest
  const answer = new Promise<Answer>((resolve, reject) => {
    const options = {
      method: 'POST',
      agent: false as const,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      ...(entry.tls === null ? {} : entry.tls)
    }
    const done = (res: IncomingMessage): void => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
    }
    req = url.protocol === 'https:' ? httpsRequest(url, options, done) : httpRequest(url, options, done)
    req.on('error', reject)
    req.write(body.slice(0, half))
  })
  return { finish: () => req.end(body.slice(half)), answer }
}

/** The processes under `pid` now (the relaunched server, its listener-less children, the instances). */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = []
  const walk = (p: number): void => {
    for (const [child, ppid] of parent)
      if (ppid === p) {
        found.push(child)
        walk(child)
      }
  }
  walk(pid)
  return found
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** `PLATFORM__A__b=value` for every leaf, as a container is configured; lists and values as JSON. */
function environmentOf(settings: { [k: string]: Json }, prefix = 'PLATFORM'): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(settings)) {
    const name = `${prefix}__${k}`
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) Object.assign(out, environmentOf(v, name))
    else out[name] = typeof v === 'string' ? v : JSON.stringify(v)
  }
  return out
}

/** The rate-limit rules a cell starts with, and after its reload (a file can change; the environment cannot). */
function rules(c: Cell, index: number, reloaded: boolean): Json[] {
  const scope: { [k: string]: Json } = c.limits === 'cluster' ? { scope: 'cluster' } : {}
  // The probe limits a method the README's calls do not make; a new name starts a new count.
  const probe = (count: number, name: string): Json => ({
    name: `${name}-${index}`,
    key: 'global',
    count,
    windowSeconds: 3600,
    match: { method: 'multiplyToInt' },
    ...scope
  })
  const changed = reloaded && c.config === 'file'
  if (c.limits === 'none') return changed ? [probe(2, 'probe-added')] : []
  return [
    { name: `calls-${index}`, key: 'identity', rate: 100000, burst: 100000, ...scope },
    changed ? probe(2, 'probe-changed') : probe(3, 'probe')
  ]
}

for (const [index, c] of CELLS.entries()) {
  describe(`cell ${index + 1} of ${CELLS.length}: ${label(c)}`, () => {
    const home = join(scratch, `cell-${index + 1}`)
    // The platform's temporary directory, outside its home: it must stay empty.
    const tmp = join(scratch, `cell-${index + 1}-tmp`)
    let pkg: Shared['packages'][string]
    let settings: { [k: string]: Json }
    let env: NodeJS.ProcessEnv
    let configFile = ''
    let platform: ChildProcess | null = null
    let output = ''
    let exited: Promise<number | null> = Promise.resolve(null)
    let hosts: RemoteHost[] = []
    let hostPorts: number[] = []
    let nginx: RunningNginx | null = null
    let entry: Entry
    let started = 0

    const cli = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
      new Promise((resolve) =>
        execFile(process.execPath, [CLI, ...args], { env }, (err, stdout, stderr) =>
          resolve({ code: err === null ? 0 : Number((err as { code?: number }).code ?? 1), stdout, stderr })
        )
      )
    const hostArgs = (): string[] =>
      c.where === 'remote-tls'
        ? ['--tls-cert', shared.host.certFile, '--tls-key', shared.host.keyFile, '--tls-ca', shared.certs.caFile]
        : []
    const startHost = (dir: string, port: number): Promise<RemoteHost> =>
      startRemoteHost(dir, SECRET_ENV, SECRET, {
        scheme: c.where === 'remote-tls' ? 'tls' : 'tcp',
        args: hostArgs(),
        port
      })
    const status = async (): Promise<Status> => {
      const r = await cli('status', pkg.name, '--json')
      assert.equal(r.code, 0, r.stderr)
      const s = JSON.parse(r.stdout) as Status | Status[]
      return Array.isArray(s) ? s.find((m) => m.name === pkg.name)! : s
    }
    const serving = (version: string) => async (): Promise<boolean> => {
      const s = await status().catch(() => null)
      return s !== null && s.versions.join() === version && s.instances.every((i) => i.version === version)
    }
    const path = (method: string): string => `/${pkg.name}/calculator/${method}`

    before(async () => {
      started = Date.now()
      pkg = shared.packages[c.runtime]!
      mkdirSync(home)
      mkdirSync(tmp)
      const ports = { gateway: await freePort(), edge: await freePort(), admin: await freePort() }
      const tls: Json = c.tls === 'off' ? null : { certFile: shared.gateway.certFile, keyFile: shared.gateway.keyFile }
      if (c.where !== 'beside') {
        hostPorts = [await freePort(), await freePort()]
        hosts = [await startHost(pkg.v1, hostPorts[0]!), await startHost(pkg.v1, hostPorts[1]!)]
      }
      const remoteTls: Json =
        c.where === 'remote-tls'
          ? {
              caFile: shared.certs.caFile,
              certFile: shared.hostClient.certFile,
              keyFile: shared.hostClient.keyFile,
              serverName: 'host.test'
            }
          : null
      settings = {
        ENTRY_POINTS: {
          WEB_SERVICE_FACADE_HTTP: {
            host: '127.0.0.1',
            port: ports.gateway,
            threads: c.threads,
            ...(tls ? { tls } : {})
          }
        },
        EDGE: { host: '127.0.0.1', port: ports.edge, ...(tls ? { tls } : {}) },
        ADMIN: { port: ports.admin },
        PLATFORM: {
          uploadDirectory: join(home, 'upload'),
          deploymentDirectory: join(home, 'deployments'),
          controlSocket: join(home, 'control.sock'),
          bootstrap: [],
          drainGraceMs: 1500,
          drainIdleMs: 0,
          drainTimeoutMs: 20000
        },
        DISPATCH: { pingIntervalMs: 200, reconnectMaxMs: 500 },
        MICROSERVICES: {
          restartMinMs: 100,
          remote: hostPorts.map((port) => ({
            name: pkg.name,
            host: '127.0.0.1',
            port,
            secretEnv: SECRET_ENV,
            ...(remoteTls ? { tls: remoteTls } : {})
          }))
        },
        RATE_LIMITS: {
          rules: rules(c, index, false),
          ...(c.limits === 'cluster' ? { redis: { url: shared.redis!.url } } : {})
        },
        ...(c.admission === 'on' ? { ADMISSION: { adaptive: true } } : {}),
        LOGGING: { accessLog: false }
      }
      configFile = join(home, 'platform.json')
      env = { ...process.env, TMPDIR: tmp, [SECRET_ENV]: SECRET }
      if (c.config === 'file') {
        writeFileSync(configFile, JSON.stringify(settings, null, 2))
        env.PLATFORM_CONFIG = configFile
      } else Object.assign(env, environmentOf(settings))

      // As an operator starts it: the server relaunches itself with its V8 flags and passes signals on.
      const child = spawn(process.execPath, [MAIN], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
      platform = child
      child.stdout.on('data', (d: Buffer) => (output += d.toString()))
      child.stderr.on('data', (d: Buffer) => (output += d.toString()))
      exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)))
      await until(
        async () => {
          if (child.exitCode !== null) throw new Error(`the platform exited ${child.exitCode}: ${output}`)
          const r = await fetch(`http://127.0.0.1:${ports.admin}/readyz`).catch(() => null)
          return r?.status === 200
        },
        30000,
        `the platform ready: ${output}`
      )

      const gatewayTls = c.tls === 'off' ? null : { ca: readFileSync(shared.certs.caFile), servername: 'gateway.test' }
      if (c.entry === 'direct') {
        entry = {
          origin: `${c.tls === 'off' ? 'http' : 'https'}://127.0.0.1:${ports.gateway}`,
          prefix: '',
          tls: gatewayTls,
          agent: new Agent({ connect: gatewayTls ?? {} }),
          // The platform's own address, as its control socket says (https:// with TLS on).
          benchArgs: c.tls === 'off' ? [] : ['--ca', shared.certs.caFile]
        }
      } else {
        const node = { host: '127.0.0.1', gatewayPort: ports.gateway, edgePort: ports.edge }
        nginx = await startNginx([node], undefined, {
          ...(c.tls === 'off'
            ? {}
            : {
                tls: { certFile: shared.edge.certFile, keyFile: shared.edge.keyFile },
                upstreamTls: { caFile: shared.certs.caFile, serverName: 'gateway.test' }
              }),
          ...(c.tls === 'client-certs' ? { clientCertificates: { caFile: shared.certs.caFile, mode: 'require' } } : {})
        })
        const client =
          c.tls === 'client-certs'
            ? { cert: readFileSync(shared.client.certFile), key: readFileSync(shared.client.keyFile) }
            : {}
        const edgeTls =
          c.tls === 'off' ? null : { ca: readFileSync(shared.certs.caFile), servername: 'edge.test', ...client }
        entry = {
          origin: nginx.url,
          prefix: '/_eapi/ELASTIC_HTTP',
          tls: edgeTls,
          agent: new Agent({ connect: edgeTls ?? {} }),
          benchArgs: [
            '--url',
            nginx.url,
            '--edge',
            ...(c.tls === 'off' ? [] : ['--ca', shared.certs.caFile, '--servername', 'edge.test']),
            ...(c.tls === 'client-certs' ? ['--cert', shared.client.certFile, '--key', shared.client.keyFile] : [])
          ]
        }
      }
    })

    after(async () => {
      if (platform !== null && platform.exitCode === null) {
        try {
          process.kill(-platform.pid!, 'SIGKILL')
        } catch {
          // gone
        }
      }
      for (const h of hosts) await stopRemoteHost(h)
      await nginx?.stop()
      await entry?.agent.close()
      console.log(`cell ${index + 1} (${label(c)}): ${((Date.now() - started) / 1000).toFixed(1)} s`)
    })

    test('the example deployed in its runtime answers the README calls through the entry', async () => {
      if (c.where === 'beside') {
        const zip = join(home, `${pkg.name}-1.0.0.zip`)
        const packed = await cli('pack', pkg.v1, zip)
        assert.equal(packed.code, 0, packed.stderr)
        const up = await cli('upload', zip)
        assert.equal(up.code, 0, up.stderr)
        assert.match(up.stdout, new RegExp(`deployed ${pkg.name} 1\\.0\\.0`))
      }
      await until(serving('1.0.0'), 30000, `${pkg.name} 1.0.0 served: ${output}`)
      for (const s of sequences) {
        const headers = { 'content-type': s.contentType, 'x-platform-sequence-name': s.name }
        const roa = await call(entry, path('multiply'), s.input(2, 3), headers)
        assert.deepEqual(roa, { status: 200, text: s.outObject(6) }, `ROA ${s.name}`)
        const rmc = await call(entry, path('multiplyInts'), s.rmc([s.int(2), s.int(3)]), {
          ...headers,
          'x-platform-api-id': 'RMC'
        })
        assert.deepEqual(rmc, { status: 200, text: s.outInt(6) }, `RMC ${s.name}`)
      }
    })

    test('microservice bench measures 2 s through the entry, every call answered', async () => {
      const file = join(home, 'bench.json')
      const r = await cli(
        'bench',
        `${pkg.name}/calculator/multiply`,
        ...['-b', '{"a":6,"b":7}', '-d', '2s', '-w', '0', '-c', '4', '-q', '--json', file],
        ...entry.benchArgs
      )
      assert.equal(r.code, 0, r.stdout + r.stderr)
      const run = (
        JSON.parse(readFileSync(file, 'utf8')) as { runs: Array<{ requests: number; errors: { total: number } }> }
      ).runs[0]!
      assert.equal(run.errors.total, 0)
      assert.ok(run.requests > 100, `${run.requests} answers in 2 s`)
    })

    test(`a reload under load (SIGHUP) ${c.config === 'file' ? 'applies the changed rule' : 'keeps the rules the environment set'}, no call failed`, async () => {
      const running = load(entry, path('multiply'), '{"a":6,"b":7}')
      await new Promise((r) => setTimeout(r, 300))
      const before = output.length
      if (c.config === 'file') {
        const changed = {
          ...settings,
          RATE_LIMITS: { ...(settings.RATE_LIMITS as object), rules: rules(c, index, true) }
        }
        writeFileSync(configFile, JSON.stringify(changed, null, 2))
      }
      process.kill(platform!.pid!, 'SIGHUP')
      const said = c.config === 'file' ? 'reloaded: RATE_LIMITS' : 'reloaded: nothing changed'
      await until(() => output.slice(before).includes(said), 10000, `"${said}": ${output.slice(before)}`)
      await new Promise((r) => setTimeout(r, 300))
      allAnswered(await running.stop())
      // The probe's limit: the count of the rule in force, then 429 RATE_LIMITED.
      const limit = c.config === 'file' ? 2 : c.limits === 'none' ? null : 3
      const probes: number[] = []
      for (let k = 0; k < (limit ?? 3) + 1; k++)
        probes.push(
          (await call(entry, path('multiplyToInt'), '{"a":2,"b":3}', { 'content-type': 'application/json' })).status
        )
      const expected = Array.from({ length: probes.length }, (_, k) => (limit !== null && k >= limit ? 429 : 200))
      assert.deepEqual(probes, expected)
    })

    test('version 2 deployed under load: served by version 2 alone, no call failed', async () => {
      const running = load(entry, path('multiply'), '{"a":6,"b":7}')
      try {
        await new Promise((r) => setTimeout(r, 300))
        if (c.where === 'beside') {
          const zip = join(home, `${pkg.name}-2.0.0.zip`)
          assert.equal((await cli('pack', pkg.v2, zip)).code, 0)
          const up = await cli('upload', zip)
          assert.equal(up.code, 0, up.stderr)
        } else {
          // A rollout across the remote hosts, one at a time: each stops gracefully (GoAway, its calls
          // answered) and comes back on its port with version 2 while the other serves.
          for (const [k, port] of hostPorts.entries()) {
            await stopRemoteHost(hosts[k])
            hosts[k] = await startHost(pkg.v2, port)
            await until(
              async () => (await status()).instances.find((i) => i.endpoint.endsWith(`:${port}`))?.version === '2.0.0',
              30000,
              `host ${k + 1} back with 2.0.0`
            )
          }
        }
        await until(serving('2.0.0'), 30000, `${pkg.name} 2.0.0 served alone: ${output}`)
        await new Promise((r) => setTimeout(r, 300))
      } finally {
        allAnswered(await running.stop())
      }
    })

    test('SIGTERM with a call in flight: the call answered, the platform gone, nothing left behind', async () => {
      const inflight = halfSent(entry, path('multiply'), '{"a":6,"b":7}')
      await new Promise((r) => setTimeout(r, 200))
      const pids = descendants(platform!.pid!)
      assert.ok(pids.length >= (c.where === 'beside' ? 2 : 1), `the processes under the platform: ${pids.join(', ')}`)
      process.kill(platform!.pid!, 'SIGTERM')
      await new Promise((r) => setTimeout(r, 300))
      inflight.finish()
      assert.deepEqual(await inflight.answer, { status: 200, text: '{"result":42}' })
      assert.equal(await exited, 0, output.slice(-2000))
      assert.match(output, /stopped \(SIGTERM\)/)
      await until(() => pids.every((p) => !alive(p)), 5000, `processes ${pids.filter(alive).join(', ')} gone`)
      assert.deepEqual(readdirSync(tmp), [], 'nothing in the platform temporary directory')
      const perfData = `/tmp/hsperfdata_${userInfo().username}`
      assert.deepEqual(
        pids.filter((p) => existsSync(join(perfData, String(p)))),
        [],
        "a JVM's performance data left behind"
      )
      for (const h of hosts) assert.equal(h.child.exitCode, null, 'the remote hosts are not the platform to stop')
    })
  })
}
