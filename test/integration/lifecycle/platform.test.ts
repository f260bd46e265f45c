import type { InstanceStatus, MicroserviceStatus } from '../../../src/platform/manager'
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { tmpdir } from 'node:os'
import { fork } from 'node:child_process'
import { startDeployPlatform, cli, editedCopy, packCopy, type DeployPlatform } from '../../helpers/processes/deploy'
import { makeZip } from '../../helpers/inputs/zip'
import {
  post,
  until,
  problem,
  EXAMPLE_DIR,
  TESTKIT_DIR,
  TYPEKIT_DIR,
  TEST_PLATFORM_OPTIONS
} from '../../helpers/platform'
import { Platform } from '../../../src/platform/platform'
import { loadConfig } from '../../../src/common/config/config'
import { hostEnv, HOST_FILE } from '../../../src/microservice/host/host-env'
import type { HostMessage } from '../../../src/microservice/host/host'

const LEAKY_DIR = join(__dirname, '..', '..', 'fixtures', 'leaky')
const RMC = { 'Content-Type': 'application/json', 'X-PLATFORM-API-ID': 'RMC' }
const work = mkdtempSync(join(tmpdir(), 'platform-test-'))

/** The example's multiply: its status, and the answer checked whenever it is a success. */
async function multiply(url: string): Promise<number> {
  const r = await post(url, '/example/calculator/multiply', '{"a":6,"b":7}')
  if (r.status === 200) assert.equal(r.text, '{"result":42}')
  return r.status
}

describe('packages, upload and lifecycle', () => {
  let d: DeployPlatform
  before(async () => {
    d = await startDeployPlatform((raw) => {
      raw.PLATFORM!.unpack = { maxEntries: 50, maxEntryBytes: 1024 * 1024, maxTotalBytes: 4 * 1024 * 1024 }
    })
  })
  after(() => d.stop())

  test('microservice pack + upload: the call works', async () => {
    const zip = join(work, 'example.zip')
    const packed = await cli(d.configFile, 'pack', EXAMPLE_DIR, zip)
    assert.equal(packed.code, 0, packed.stderr)
    assert.match(packed.stdout, /packed example 1\.0\.0 \(\d+ files, 2 documented ROA methods\)/)
    const up = await cli(d.configFile, 'upload', zip)
    assert.equal(up.code, 0, up.stderr)
    assert.equal(up.stdout.trim(), 'deployed example 1.0.0')
    assert.equal(await multiply(d.url), 200)
  })

  test('pack refuses a directory not named after its microservice', async () => {
    const r = await cli(d.configFile, 'pack', TYPEKIT_DIR.replace(/typekit$/, 'testkit'), join(work, 'x.zip'))
    assert.equal(r.code, 0, 'testkit is named after itself')
    const wrong = mkdtempSync(join(work, 'wrong-'))
    writeFileSync(join(wrong, 'microservice.json'), JSON.stringify({ name: 'other', version: '1', entry: 'index.js' }))
    writeFileSync(join(wrong, 'index.js'), '')
    const bad = await cli(d.configFile, 'pack', wrong)
    assert.equal(bad.code, 1)
    assert.match(bad.stderr, /the directory is named 'wrong-\w+' but microservice\.json names 'other'/)
    // Without a zip name, the package goes beside its directory, whatever the working directory is.
    const dir = editedCopy(EXAMPLE_DIR, work)
    const beside = await cli(d.configFile, 'pack', dir)
    assert.equal(beside.code, 0, beside.stderr)
    const zip = join(dirname(dir), 'example-1.0.0.zip')
    assert.match(beside.stdout, new RegExp(`into ${zip.replace(/[.]/g, '\\.')}\n$`))
    assert.ok(existsSync(zip))
  })

  const config = JSON.stringify({ name: 'example', version: '9.9.9', entry: 'index.js' })
  const badZips: Array<[string, Buffer, RegExp]> = [
    [
      'no top-level directory',
      makeZip([
        { name: 'microservice.json', data: config },
        { name: 'index.js', data: '' }
      ]),
      /'microservice\.json' is not inside a top-level directory/
    ],
    [
      'top directory not named as in its config',
      makeZip([
        { name: 'other/microservice.json', data: config },
        { name: 'other/index.js', data: '' }
      ]),
      /the top-level directory is 'other' but microservice\.json names 'example'/
    ],
    [
      'a ../ path',
      makeZip([
        { name: 'example/microservice.json', data: config },
        { name: 'example/../../evil.js', data: 'x' }
      ]),
      /invalid relative path|outside the package/
    ],
    [
      'a link',
      makeZip([
        { name: 'example/microservice.json', data: config },
        { name: 'example/index.js', data: '/etc/passwd', mode: 0o120777 }
      ]),
      /'example\/index\.js' is a link/
    ],
    ['missing config', makeZip([{ name: 'example/index.js', data: '' }]), /microservice\.json is missing/],
    [
      'invalid config',
      makeZip([
        { name: 'example/microservice.json', data: '{"name":"example","version":"1"' },
        { name: 'example/index.js', data: '' }
      ]),
      /cannot be read as JSON/
    ],
    [
      'a config that breaks the schema',
      makeZip([
        {
          name: 'example/microservice.json',
          data: JSON.stringify({ name: 'example', version: '1', entry: 'index.js', instances: 0 })
        },
        { name: 'example/index.js', data: '' }
      ]),
      /instances: must be an integer from 1 to 64/
    ],
    [
      'a missing entry module',
      makeZip([{ name: 'example/microservice.json', data: config }]),
      /index\.js, the entry module named in microservice\.json, is not in the package/
    ],
    [
      'an entry that declares more than the limit',
      makeZip([
        { name: 'example/microservice.json', data: config },
        { name: 'example/big.bin', data: Buffer.alloc(2 * 1024 * 1024), deflate: true }
      ]),
      /declares 2097152 bytes, more than 1048576/
    ],
    [
      'an entry that inflates beyond what it declares',
      makeZip([
        { name: 'example/microservice.json', data: config },
        { name: 'example/bomb.bin', data: Buffer.alloc(3 * 1024 * 1024), deflate: true, declaredSize: 100 }
      ]),
      /inflates beyond|too many bytes|not a valid package/
    ],
    [
      'random bytes',
      Buffer.from(Array.from({ length: 4096 }, (_, k) => (k * 7919) % 256)),
      /not a readable zip archive/
    ],
    [
      'an entry module that fails to load',
      makeZip([
        { name: 'example/microservice.json', data: config },
        { name: 'example/index.js', data: 'throw new Error("broken on purpose")' }
      ]),
      /example 9\.9\.9 did not start: .*index\.js:1:7: Error: broken on purpose/
    ]
  ]

  for (const [what, bytes, message] of badZips) {
    test(`refused: ${what}; the running version keeps answering`, async () => {
      const file = join(work, `${what.replace(/\W+/g, '-')}.zip`)
      writeFileSync(file, bytes)
      const r = await cli(d.configFile, 'upload', file)
      assert.equal(r.code, 1, r.stdout)
      assert.match(r.stderr, message)
      assert.match(r.stderr, /^microservice: refused /)
      assert.equal(await multiply(d.url), 200)
      const status = await cli(d.configFile, 'status', 'example')
      assert.match(status.stdout, /^example 1\.0\.0: available/)
    })
  }

  test('nothing escaped the deployment directory', () => {
    assert.equal(existsSync(join(d.dir, 'evil.js')), false)
    assert.equal(existsSync(join(d.dir, 'deployments', 'evil.js')), false)
  })

  test('a new version uploaded under a steady load loses no call', async () => {
    const zip = await packCopy(EXAMPLE_DIR, work, (c) => {
      c.version = '2.0.0'
    })
    const statuses: number[] = []
    let running = true
    const loops = Array.from({ length: 16 }, async () => {
      while (running) statuses.push(await multiply(d.url))
    })
    await until(() => statuses.length > 200, 10000, 'load to run')
    const up = await cli(d.configFile, 'upload', zip)
    assert.equal(up.stdout.trim(), 'deployed example 2.0.0', up.stderr)
    const after = statuses.length
    await until(() => statuses.length > after + 200, 10000, 'load after the switch')
    running = false
    await Promise.all(loops)
    const failed = statuses.filter((s) => s !== 200)
    assert.deepEqual(failed, [], `${failed.length} of ${statuses.length} calls failed`)
    assert.ok(statuses.length > 400)
    const status = await cli(d.configFile, 'status', 'example')
    assert.match(status.stdout, /^example 2\.0\.0: available/)
    assert.match(status.stdout, /example@2\.0\.0#\d+\.0: running/)
    assert.doesNotMatch(status.stdout, /@1\.0\.0/, 'the old version is gone')
    // The old version's instance says how long it drains and by which setting, as docs/operating.md does.
    const logs = (await cli(d.configFile, 'logs', 'example', '1000')).stdout
    const drained = /\[example@1\.0\.0#[^\]]+\] (microservice example stopping: .*)$/m.exec(logs)
    const line = drained?.[1] ?? ''
    assert.match(line, /draining for up to 4000 ms \(MICROSERVICE_DRAIN_MS, its default\)$/, logs.slice(-2000))
    const operating = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'operating.md'), 'utf8')
    assert.ok(operating.replace(/\s+/g, ' ').includes(line), `docs/operating.md does not say: ${line}`)
    const json = JSON.parse((await cli(d.configFile, 'status', 'example', '--json')).stdout) as MicroserviceStatus
    assert.equal(json.name, 'example')
    assert.equal(json.version, '2.0.0')
    assert.equal(json.unavailable, null)
    assert.deepEqual(
      json.instances.map((i) => i.state),
      ['running']
    )
    const list = JSON.parse((await cli(d.configFile, '--json', 'list')).stdout) as MicroserviceStatus[]
    assert.deepEqual(
      list.map((m) => m.name),
      ['example']
    )
  })

  test('a command given another config names the socket it tried and the setting that finds the platform', async () => {
    const other = join(mkdtempSync(join(work, 'other-')), 'platform.json')
    const socket = join(dirname(other), 'elsewhere.sock')
    writeFileSync(other, JSON.stringify({ PLATFORM: { controlSocket: socket } }))
    const r = await cli(other, 'list')
    assert.equal(r.code, 1)
    assert.ok(r.stderr.includes(`the control socket ${socket} comes from the config ${other}`), r.stderr)
    assert.match(r.stderr, /a platform started with another PLATFORM_CONFIG or PLATFORM__PLATFORM__controlSocket/)
    // The same command with the platform's own config finds it, its home moved.
    assert.match((await cli(d.configFile, 'list')).stdout, /^example /m)
  })

  test('the version deployed already, or an older one, is refused unless --force', async () => {
    const again = await packCopy(EXAMPLE_DIR, work, (c) => {
      c.version = '2.0.0'
    })
    const same = await cli(d.configFile, 'upload', again)
    assert.deepEqual(
      { code: same.code, err: same.stderr },
      {
        code: 1,
        err: 'microservice: example 2.0.0 is deployed already; to replace it with this package, upload again with --force\n'
      }
    )
    const older = await cli(d.configFile, 'upload', join(work, 'example.zip'))
    assert.equal(older.code, 1)
    assert.equal(
      older.stderr,
      'microservice: example 2.0.0 is deployed, newer than 1.0.0; to go back, use microservice rollback example or upload again with --force\n'
    )
    const pid = d.platform.manager.get('example')!.instances[0]!.child!.pid
    assert.match((await cli(d.configFile, 'status', 'example')).stdout, /^example 2\.0\.0: available/)
    const forced = await cli(d.configFile, 'upload', again, '--force')
    assert.equal(forced.stdout.trim(), 'deployed example 2.0.0', forced.stderr)
    assert.notEqual(d.platform.manager.get('example')!.instances[0]!.child!.pid, pid, 'a new instance runs')
    assert.equal(await multiply(d.url), 200)
  })

  test('SIGKILL of an instance: restarted and answering', async () => {
    const pid = d.platform.manager.get('example')!.instances[0]!.child!.pid!
    process.kill(pid, 'SIGKILL')
    await until(
      async () => (await cli(d.configFile, 'status', 'example')).stdout.includes('1 restarts'),
      10000,
      'the restart'
    )
    await until(async () => (await multiply(d.url)) === 200, 10000, 'calls to work again')
    assert.notEqual(d.platform.manager.get('example')!.instances[0]!.child!.pid, pid)
  })

  test('stop, start, logs and remove; each refusal says why', async () => {
    assert.match((await cli(d.configFile, 'stop', 'example')).stdout, /stopped example/)
    const r = await post(d.url, '/example/calculator/multiply', '{"a":1,"b":1}')
    assert.equal(problem(r).code, 'MICROSERVICE_UNAVAILABLE')
    const again = await cli(d.configFile, 'stop', 'example')
    assert.equal(again.code, 1)
    assert.match(again.stderr, /example is already stopped/)
    assert.match((await cli(d.configFile, 'start', 'example')).stdout, /started example 2\.0\.0/)
    assert.equal(await multiply(d.url), 200)
    assert.match((await cli(d.configFile, 'logs', 'example', '20')).stdout, /listening on unix:\S+\.sock/)
    const missing = await cli(d.configFile, 'status', 'nope')
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /no microservice named 'nope' is deployed/)
  })

  test("microservice.json's remotely-enabled list and aliases override the code's", async () => {
    const zip = await packCopy(EXAMPLE_DIR, work, (c) => {
      c.name = 'example2'
      c.platformRegularExpressionToRemotelyEnabled = ['calculator']
      c.aliases = { 'com.example.Out': 'product' }
    })
    const up = await cli(d.configFile, 'upload', zip)
    assert.equal(up.code, 0, up.stderr)
    assert.equal(problem(await post(d.url, '/example2/diagnostics/echo', '"x"')).code, 'UNKNOWN_SERVICE')
    const r = await post(d.url, '/example2/calculator/multiply', '<in><a>2</a><b>3</b></in>', {
      'Content-Type': 'application/xml',
      'X-PLATFORM-Sequence-Name': 'alphaParamArrayXmlInOutSequence'
    })
    assert.equal(r.text, '<product>\n  <result>6</result>\n</product>')
    assert.match((await cli(d.configFile, 'remove', 'example2')).stdout, /removed example2/)
  })

  test('what is deployed survives a restart of the platform, and so do its logs', async () => {
    const before = (await cli(d.configFile, 'logs', 'example', '1000')).stdout.trim().split('\n')
    const restartedAt = new Date().toISOString()
    await d.restart()
    assert.equal(await multiply(d.url), 200)
    assert.match((await cli(d.configFile, 'status', 'example')).stdout, /^example 2\.0\.0: available/)
    const after = (await cli(d.configFile, 'logs', 'example', '1000')).stdout.trim().split('\n')
    // Every line shown before the restart is still shown, and the new instance's lines come after them.
    for (const line of before) assert.ok(after.includes(line), `kept: ${line}`)
    assert.ok(
      after.some((l) => l.slice(0, 24) > restartedAt && /listening on/.test(l)),
      'the new run logged'
    )
    assert.match(before[0]!, /^\d{4}-\d\d-\d\dT[\d:.]+Z \[example@[\d.]+#\d+\.\d+\] /)
  })

  test('remove: gone from the gateway and the disk', async () => {
    assert.match((await cli(d.configFile, 'remove', 'example')).stdout, /removed example/)
    assert.equal(problem(await post(d.url, '/example/calculator/multiply', '{}')).code, 'UNKNOWN_MICROSERVICE')
    assert.equal(existsSync(join(d.dir, 'deployments', 'example')), false)
    assert.match((await cli(d.configFile, 'list')).stdout, /no microservice is deployed/)
    // Its logs stay on disk and are still read: why a removed microservice misbehaved can be looked up.
    const logs = await cli(d.configFile, 'logs', 'example', '5')
    assert.equal(logs.code, 0, logs.stderr)
    assert.match(logs.stdout, /^\d{4}-\d\d-\d\dT[\d:.]+Z \[example@2\.0\.0#\d+\.\d+\] /)
    const never = await cli(d.configFile, 'logs', 'never-deployed')
    assert.deepEqual(
      [never.code, never.stderr],
      [1, "microservice: no microservice named 'never-deployed' is deployed\n"]
    )
  })
})

describe('memory errors', () => {
  let d: DeployPlatform
  before(async () => {
    d = await startDeployPlatform()
  })
  after(() => d.stop())

  test('heap exhaustion: snapshot written, restarted with the heap grown 15%, at most 4 times', async () => {
    const up = await cli(d.configFile, 'upload', await packCopy(LEAKY_DIR, work))
    assert.equal(up.code, 0, up.stderr)
    const heaps: number[] = []
    for (let round = 0; round <= 4; round++) {
      heaps.push(Number((await post(d.url, '/leaky/memory/heapLimitMb', '[]', RMC)).text))
      const r = await post(d.url, '/leaky/memory/leak', '[]', RMC)
      assert.equal(problem(r).code, 'BACKEND_CONNECTION_LOST')
      const status = (): InstanceStatus => d.platform.manager.get('leaky')!.instances[0]!.status()
      const instance = (): string => status().state
      // The dying instance says running until its exit is read: the restart counted says it is the new one.
      if (round < 4)
        await until(
          () =>
            status().memoryRestarts === round + 1 &&
            instance() === 'running' &&
            d.platform.directory.get('leaky')!.unavailableReason() === null,
          20000,
          `restart ${round + 1}`
        )
      else await until(() => instance() === 'failed', 20000, 'the final stop')
    }
    const status = (await cli(d.configFile, 'status', 'leaky')).stdout
    assert.match(
      status,
      /leaky@1\.0\.0#1\.0: failed, (port \d+, )?heap 58 MB, 4 restarts \(4 for memory\) - stopped after 4 memory-error restarts; the heap limit was 58 MB/
    )
    // 32 MB grown by 15% each time: 37, 43, 50, 58 (V8 adds its young generation to what it reports).
    for (let k = 1; k < heaps.length; k++) assert.ok(heaps[k]! > heaps[k - 1]!, `heap limits grow: ${heaps.join(', ')}`)
    const snapshots = readdirSync(join(d.dir, 'deployments', 'snapshots', 'leaky')).filter((f) =>
      f.endsWith('.heapsnapshot')
    )
    assert.ok(snapshots.length >= 1, 'a heap snapshot was written')
    assert.equal(problem(await post(d.url, '/leaky/memory/heapLimitMb', '[]', RMC)).code, 'MICROSERVICE_UNAVAILABLE')
  })
})

describe('a drain that does not finish', () => {
  let d: DeployPlatform
  before(async () => {
    d = await startDeployPlatform((raw) => {
      raw.PLATFORM!.drainTimeoutMs = 300
    })
  })
  after(() => d.stop())

  // Past drainTimeoutMs the old instance is told to stop; it has the stop's 5 s, then is killed.
  test('a call longer than the drain and the stop: cut with its instance (502), the drain counted', async () => {
    const up = await cli(d.configFile, 'upload', await packCopy(TESTKIT_DIR, work))
    assert.equal(up.code, 0, up.stderr)
    const long = post(d.url, '/testkit/slow/sleep', '8000')
    await until(() => (d.platform.directory.get('testkit')?.inflight ?? 0) === 1, 5000, 'the call in flight')
    const v2 = await packCopy(TESTKIT_DIR, work, (c) => {
      c.version = '2.0.0'
    })
    const replaced = await cli(d.configFile, 'upload', v2)
    assert.equal(replaced.stdout.trim(), 'deployed testkit 2.0.0', replaced.stderr)
    assert.equal(problem(await long).code, 'BACKEND_CONNECTION_LOST')
    assert.equal(d.platform.manager.drainTimeouts, 1)
    const metrics = await (await fetch(`http://127.0.0.1:${d.platform.adminPort}/metrics`)).text()
    assert.match(metrics, /^igw_drain_timeouts_total 1$/m)
  })
})

describe('several instances', () => {
  let d: DeployPlatform
  before(async () => {
    d = await startDeployPlatform()
  })
  after(() => d.stop())

  test('calls are spread over the instances; one lost, the others carry on', async () => {
    const up = await cli(
      d.configFile,
      'upload',
      await packCopy(TYPEKIT_DIR, work, (c) => {
        c.instances = 2
      })
    )
    assert.equal(up.code, 0, up.stderr)
    const pids = async (): Promise<Set<string>> =>
      new Set(
        await Promise.all(
          Array.from({ length: 40 }, async () => (await post(d.url, '/typekit/types/pid', '[]', RMC)).text)
        )
      )
    assert.equal((await pids()).size, 2)
    const killed = d.platform.manager.get('typekit')!.instances[0]!
    process.kill(killed.child!.pid!, 'SIGKILL')
    // Calls already on its connection get 502 (DESIGN); once the gateway has seen the connection
    // drop, every call goes to the instance that is left.
    await until(
      () => d.platform.directory.get('typekit')!.instances.get(killed.id)!.reason !== null,
      5000,
      'the loss to be seen'
    )
    const during = await Promise.all(
      Array.from({ length: 20 }, async () => (await post(d.url, '/typekit/types/pid', '[]', RMC)).status)
    )
    assert.ok(
      during.every((s) => s === 200),
      during.join(',')
    )
    await until(async () => (await pids()).size === 2, 10000, 'both instances again')
  })

  test('an instance on another host listed in the config', async () => {
    const host = fork(HOST_FILE, [TYPEKIT_DIR], { env: hostEnv(), stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    try {
      const port = await new Promise<number>((resolve) =>
        host.on('message', (m: HostMessage) => resolve('port' in m.endpoint ? m.endpoint.port : 0))
      )
      const config = loadConfig(d.configFile, {
        PLATFORM__MICROSERVICES__remote: JSON.stringify([{ name: 'typekit', host: '127.0.0.1', port }])
      })
      const remote = new Platform(
        {
          ...config,
          platform: {
            ...config.platform,
            controlSocket: join(d.dir, 'remote.sock'),
            uploadDirectory: join(d.dir, 'remote-up'),
            deploymentDirectory: join(d.dir, 'remote-dep')
          }
        },
        TEST_PLATFORM_OPTIONS
      )
      await remote.start()
      try {
        await remote.connected('typekit')
        assert.equal(
          (await post(`http://127.0.0.1:${remote.port}`, '/typekit/types/pid', '[]', RMC)).text,
          String(host.pid)
        )
      } finally {
        await remote.stop()
      }
    } finally {
      host.kill()
    }
  })
})
