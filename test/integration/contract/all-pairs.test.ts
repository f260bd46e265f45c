// time limit: 900 s: eleven cells, each a platform started, deployed, called, measured, reloaded, redeployed, stopped
// Every feature with every other: the platform's options combined all-pairs (covertable, its seed pinned so
// a failure repeats), each combination run as an operator runs it: a fresh home, `node dist/src/main.js`
// configured by a file or by the environment alone, the example deployed in its runtime (or served by
// remote hosts), the README's calls through the entry the cell uses, `microservice bench`, a reload
// under load, version 2 deployed under load, and SIGTERM with a call in flight (docs/development.md,
// "The all-pairs matrix").
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { join } from 'node:path'
import { tmpdir, userInfo } from 'node:os'
import { make, sorters } from 'covertable'
import { Agent } from 'undici'
import { EXAMPLE_DIR, exampleAt, until, type Json } from '../../helpers/platform'
import { CLI } from '../../helpers/processes/deploy'
import { ROOT } from '../../helpers/root'
import { freePort, startNginx, type RunningNginx } from '../../helpers/nginx'
import { startRedis, type RunningRedis } from '../../helpers/redis'
import { startRemoteHost, stopRemoteHost, type RemoteHost } from '../../helpers/processes/remote-host'
import { CertificateMaker, type Made } from '../../helpers/inputs/certificates'
import { PODMAN, runOnHostNetwork } from '../../helpers/processes/container'
import { builtPackage, hostClassPath } from '../../helpers/java/java-package'
import { sequences } from '../../helpers/inputs/spec-calls'
import { failureKey } from '../../helpers/load'
import { runFile, type Ran } from '../../helpers/exec'
import { descendantsOf } from '../../../bench/e2e/harness/procstat'

/** The options an operator combines, each with the values a production platform runs. */
const FACTORS = {
  threads: [1, 2],
  tls: ['off', 'on', 'client-certs'],
  limits: ['none', 'local', 'cluster'],
  admission: ['off', 'on'],
  runtime: ['js', 'java'],
  where: ['beside', 'remote-tcp', 'remote-tls'],
  config: ['file', 'env'],
  entry: ['direct', 'nginx'],
  placement: ['host', 'image']
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
  placement: string
}

/**
 * Client certificates are required by the generated nginx edge: this host's uWebSockets.js build cannot
 * require them on the gateway's own listener (docs/security.md), so that value never meets `direct`.
 */
const possible = (c: Partial<Cell>): boolean => !(c.tls === 'client-certs' && c.entry === 'direct')
/** The generator's seed: another one may need more cells or miss a pair (the first test says which). */
const SEED = 'matrix-154'
const CELLS = make(FACTORS, { sorter: sorters.hash, seed: SEED, preFilter: possible }) as unknown as Cell[]
const label = (c: Cell): string =>
  `threads ${c.threads}, tls ${c.tls}, limits ${c.limits}, admission ${c.admission}, ${c.runtime} ${c.where}, ` +
  `config ${c.config}, entry ${c.entry}, placed on the ${c.placement}`

/**
 * npm test runs the cells placed on the host; `npm run test:image` (scripts/image/test.sh) runs this file
 * again with IGW_ALL_PAIRS_PLACEMENT=image for the cells placed in the image (IGW_IMAGE, and
 * IGW_JAVA_IMAGE for a Java microservice deployed beside the platform).
 */
const PLACEMENT = process.env.IGW_ALL_PAIRS_PLACEMENT === 'image' ? 'image' : 'host'
/** Where a container keeps its state: the image's volume, a cell's home mounted there. */
const VOLUME = '/var/lib/invocation-gateway'
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

test(`this run takes the cells placed on the ${PLACEMENT}`, () => {
  assert.ok(CELLS.some((c) => c.placement === PLACEMENT))
  if (PLACEMENT === 'image') assert.ok(process.env.IGW_IMAGE, 'IGW_IMAGE names the image to place cells in')
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

const HERE = CELLS.map((c, k) => ({ c, index: k })).filter(({ c }) => c.placement === PLACEMENT)

before(async () => {
  const certs = new CertificateMaker()
  let java = { name: 'java-example', v1: '', v2: '' }
  if (HERE.some(({ c }) => c.runtime === 'java')) {
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
    redis: HERE.some(({ c }) => c.limits === 'cluster') ? await startRedis() : null,
    packages: { js: { name: 'example', v1: EXAMPLE_DIR, v2: exampleAt('2.0.0') }, java }
  }
  // A container's user (uid 1000) reads the keys through the mounted directory.
  if (PLACEMENT === 'image') {
    chmodSync(certs.dir, 0o755)
    for (const f of readdirSync(certs.dir)) chmodSync(join(certs.dir, f), 0o644)
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
          const key = failureKey(a.status, a.text)
          got.others[key] = { count: (got.others[key]?.count ?? 0) + 1, detail: a.text.slice(0, 200) }
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
  /** Answers other than 200, by status and problem code, with the last one's body. */
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

/** A cell's platform as it runs: a process on this host, or a container of the image. */
interface Placed {
  /** What it printed so far. */
  logs(): Promise<string>
  signal(signal: 'SIGHUP' | 'SIGTERM'): Promise<void>
  /** Its exit code, once it has exited. */
  exited(): Promise<number | null>
  /** `microservice ARGS` where its operator types it: beside it, or in its container. */
  microservice(...args: string[]): Promise<Ran>
  /** What is left of it once it has exited (processes, files, the container): nothing, said as []. */
  leftovers(): Promise<string[]>
  /** Gone at once, whatever it was doing (after a failed test). */
  kill(): Promise<void>
}

/** `node dist/src/main.js` in a process group of its own, as a service manager starts it. */
function onHost(env: NodeJS.ProcessEnv, tmp: string): Placed {
  const child = spawn(process.execPath, [MAIN], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr.on('data', (d: Buffer) => (output += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  let pids: number[] = []
  return {
    logs: () => Promise.resolve(output),
    async signal(signal) {
      // The processes under it when it is told to stop: each must be gone after.
      if (signal === 'SIGTERM') pids = descendantsOf(child.pid!)
      process.kill(child.pid!, signal)
    },
    exited: () => exited,
    microservice: (...args) => runFile(process.execPath, [CLI, ...args], env),
    async leftovers() {
      const deadline = Date.now() + 5000
      while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      const perfData = `/tmp/hsperfdata_${userInfo().username}`
      return [
        ...pids.filter(alive).map((p) => `process ${p}`),
        ...pids.filter((p) => existsSync(join(perfData, String(p)))).map((p) => `a JVM's ${perfData}/${p}`),
        ...readdirSync(tmp).map((f) => `${tmp}/${f}`)
      ]
    },
    async kill() {
      if (child.exitCode !== null) return
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // gone
      }
      await exited
    }
  }
}

/** A container of `image` on the host's network, the cell's home as its state volume. */
async function inImage(name: string, image: string, env: Record<string, string>, volumes: string[]): Promise<Placed> {
  const settings = Object.entries(env).map(([k, v]) => `${k}=${v}`)
  const started = await runFile(PODMAN, runOnHostNetwork(name, image, settings, volumes))
  assert.equal(started.code, 0, started.stderr)
  return {
    async logs() {
      const r = await runFile(PODMAN, ['logs', name])
      return r.stdout + r.stderr
    },
    async signal(signal) {
      await runFile(PODMAN, ['kill', '--signal', signal.slice(3), name])
    },
    async exited() {
      const r = await runFile(PODMAN, ['wait', name])
      return Number(r.stdout.trim())
    },
    microservice: (...args) => runFile(PODMAN, ['exec', name, 'microservice', ...args]),
    async leftovers() {
      const removed = await runFile(PODMAN, ['rm', name])
      const listed = await runFile(PODMAN, ['ps', '-a', '--filter', `name=^${name}$`, '--format', '{{.Names}}'])
      return [
        ...(removed.code === 0 ? [] : [`podman rm ${name}: ${removed.stderr.trim()}`]),
        ...listed.stdout
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => `container ${l}`)
      ]
    },
    async kill() {
      await runFile(PODMAN, ['rm', '-f', name])
    }
  }
}

for (const { c, index } of HERE) {
  describe(`cell ${index + 1} of ${CELLS.length}: ${label(c)}`, () => {
    const home = join(scratch, `cell-${index + 1}`)
    // The platform's temporary directory, outside its home: it must stay empty.
    const tmp = join(scratch, `cell-${index + 1}-tmp`)
    let pkg: Shared['packages'][string]
    let settings: { [k: string]: Json }
    let env: NodeJS.ProcessEnv
    let configFile = ''
    let placed: Placed | null = null
    let hosts: RemoteHost[] = []
    let hostPorts: number[] = []
    let nginx: RunningNginx | null = null
    let entry: Entry
    let started = 0

    const image = c.placement === 'image'
    // Where the platform sees the cell's home: the same path on the host, the state volume in a container.
    const state = image ? VOLUME : home
    const inside = (file: string): string => (image ? file.replace(home, VOLUME) : file)
    /** `microservice` on this host: pack, and bench (a load generator runs outside the platform's container). */
    const cli = (...args: string[]): Promise<Ran> => runFile(process.execPath, [CLI, ...args], env)
    const logs = async (): Promise<string> => (placed === null ? '' : placed.logs())
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
      const r = await placed!.microservice('status', pkg.name, '--json')
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
      if (image) chownSync(home, 1000, 1000) // the image's user
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
        // On loopback as the gateway and edge are: the image's 0.0.0.0 beside TLS would refuse the start.
        ADMIN: { host: '127.0.0.1', port: ports.admin },
        PLATFORM: {
          uploadDirectory: join(state, 'upload'),
          deploymentDirectory: join(state, 'deployments'),
          controlSocket: join(state, 'control.sock'),
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
        // The load is 4 callers: a floor under them keeps the limit moving without shedding them. A
        // rollout's cold JVM once doubled round trips and the limit fell to 3, shedding 80 calls.
        ...(c.admission === 'on' ? { ADMISSION: { adaptive: true, minLimit: 4 } } : {}),
        LOGGING: { accessLog: false }
      }
      configFile = join(home, 'platform.json')
      const settingsEnv: Record<string, string> =
        c.config === 'file' ? { PLATFORM_CONFIG: inside(configFile) } : environmentOf(settings)
      if (c.config === 'file') writeFileSync(configFile, JSON.stringify(settings, null, 2))
      // On the host the command finds the platform as the platform found its config; a container's is its own.
      env = { ...process.env, TMPDIR: tmp, [SECRET_ENV]: SECRET, ...(image ? {} : settingsEnv) }
      if (image) {
        const tag = c.runtime === 'java' && c.where === 'beside' ? process.env.IGW_JAVA_IMAGE : process.env.IGW_IMAGE
        assert.ok(tag, 'IGW_IMAGE (and IGW_JAVA_IMAGE) name the images')
        // A file's state directories are the volume's; the image's environment says so, and wins over a file.
        placed = await inImage(
          `igw-all-pairs-${process.pid}-${index + 1}`,
          tag,
          { [SECRET_ENV]: SECRET, ...settingsEnv },
          [`${home}:${VOLUME}`, `${shared.certs.dir}:${shared.certs.dir}:ro`]
        )
      } else {
        // As an operator starts it: the server relaunches itself with its V8 flags and passes signals on.
        placed = onHost(env, tmp)
      }
      const p = placed
      const ready = async (): Promise<boolean> =>
        (await fetch(`http://127.0.0.1:${ports.admin}/readyz`).catch(() => null))?.status === 200
      await until(ready, 60000, 'the platform ready').catch(async (err: Error) => {
        throw new Error(`${err.message}: ${(await p.logs()).slice(-3000)}`)
      })

      const gatewayTls = c.tls === 'off' ? null : { ca: readFileSync(shared.certs.caFile), servername: 'gateway.test' }
      if (c.entry === 'direct') {
        entry = {
          origin: `${c.tls === 'off' ? 'http' : 'https'}://127.0.0.1:${ports.gateway}`,
          prefix: '',
          tls: gatewayTls,
          agent: new Agent({ connect: gatewayTls ?? {} }),
          // On the host, the platform's own address as its control socket says (https:// with TLS on).
          benchArgs: [
            ...(image ? ['--url', `${c.tls === 'off' ? 'http' : 'https'}://127.0.0.1:${ports.gateway}`] : []),
            ...(c.tls === 'off' ? [] : ['--ca', shared.certs.caFile])
          ]
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
      await placed?.kill()
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
        const up = await placed!.microservice('upload', inside(zip))
        assert.equal(up.code, 0, up.stderr)
        assert.match(up.stdout, new RegExp(`deployed ${pkg.name} 1\\.0\\.0`))
      }
      await until(serving('1.0.0'), 30000, `${pkg.name} 1.0.0 served: ${await logs()}`)
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
      const before = (await logs()).length
      if (c.config === 'file') {
        const changed = {
          ...settings,
          RATE_LIMITS: { ...(settings.RATE_LIMITS as object), rules: rules(c, index, true) }
        }
        writeFileSync(configFile, JSON.stringify(changed, null, 2))
      }
      await placed!.signal('SIGHUP')
      const said = c.config === 'file' ? 'reloaded: RATE_LIMITS' : 'reloaded: nothing changed'
      await until(async () => (await logs()).slice(before).includes(said), 10000, `"${said}"`)
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
          const up = await placed!.microservice('upload', inside(zip))
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
        await until(serving('2.0.0'), 30000, `${pkg.name} 2.0.0 served alone`)
        await new Promise((r) => setTimeout(r, 300))
      } finally {
        allAnswered(await running.stop())
      }
    })

    test('SIGTERM with a call in flight: the call answered, the platform gone, nothing left behind', async () => {
      const inflight = halfSent(entry, path('multiply'), '{"a":6,"b":7}')
      await new Promise((r) => setTimeout(r, 200))
      await placed!.signal('SIGTERM')
      await new Promise((r) => setTimeout(r, 300))
      inflight.finish()
      assert.deepEqual(await inflight.answer, { status: 200, text: '{"result":42}' })
      assert.equal(await placed!.exited(), 0, (await logs()).slice(-2000))
      assert.match(await logs(), /stopped \(SIGTERM\)/)
      assert.deepEqual(await placed!.leftovers(), [])
      for (const h of hosts) assert.equal(h.child.exitCode, null, 'the remote hosts are not the platform to stop')
    })
  })
}
