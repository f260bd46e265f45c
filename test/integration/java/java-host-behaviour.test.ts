// What only the Java host does, or does its own way (docs/java.md): a method that ignores its
// interrupt keeps its thread and its slot goes to the next call; a fault's stack reaches the
// instance log under the request id, a service exception's does not; the overloaded name of a
// remotely enabled service stops the start; and a Java host on its own (`microservice host`) takes
// only a gateway that proves the shared secret.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { Platform } from '../../../src/platform/platform'
import {
  startPlatform,
  post,
  problem,
  until,
  testConfig,
  TEST_PLATFORM_OPTIONS,
  JSON_CT,
  type RunningPlatform
} from '../../helpers/platform'
import {
  builtPackage,
  hostClassPath,
  javaPackage,
  javaPackageVariant,
  springContext
} from '../../helpers/java/java-package'
import { freePort } from '../../helpers/nginx'
import { ROOT } from '../../helpers/root'
import { CLI } from '../../helpers/processes/deploy'

const RMC = { ...JSON_CT, 'X-PLATFORM-API-ID': 'RMC' }

/** The Java testkit with one execution thread: a hung method would leave the pool with none. */
function oneThreadTestkit(): string {
  return javaPackageVariant(builtPackage(join(ROOT, 'test', 'fixtures', 'java-testkit')), (config) => {
    config.settings = { ...(config.settings as object), threadPoolSize: 1 }
  })
}

describe('the Java host', () => {
  let p: RunningPlatform
  const log = (): string => p.platform.manager.get('java-testkit')!.tail(500).join('\n')
  before(async () => {
    p = await startPlatform({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { executingTimeoutMs: 1000 } } }, [
      oneThreadTestkit()
    ])
  })
  after(() => p.stop())

  test('a method that ignores its interrupt: 504, logged, and its slot goes on so that calls still run', async () => {
    const r = await post(p.url, '/java-testkit/slow/hang', '0', { ...JSON_CT, 'X-PLATFORM-Request-ID': 'req-hang' })
    assert.equal(problem(r).code, 'EXECUTION_TIMEOUT')
    await until(() => log().includes('slow.hang still runs'), 5000, 'the left thread in the log')
    assert.match(
      log(),
      /slow\.hang still runs a second after its interrupt \(request req-hang\): its thread is left to it, its slot to the next call; 1 left so far/
    )
    // threadPoolSize is 1 and that thread still spins: without its slot handed on this call would wait.
    const pair = await post(p.url, '/java-testkit/misc/pair', '["a","b"]', RMC)
    assert.deepEqual([pair.status, pair.text], [200, '"ab"'])
  })

  test("a fault's stack in the instance log under the request id, ten a minute; a service exception's not", async () => {
    const r = await post(p.url, '/java-testkit/misc/fail', '"boom"', {
      ...JSON_CT,
      'X-PLATFORM-Request-ID': 'req-jboom'
    })
    assert.equal(problem(r).detail, 'IllegalStateException: failed on boom')
    await post(p.url, '/java-testkit/misc/conflict', '"x"', { ...JSON_CT, 'X-PLATFORM-Request-ID': 'req-jconflict' })
    await until(() => log().includes('req-jboom'), 5000, 'the fault in the instance log')
    assert.match(
      log(),
      /misc\.fail threw \(request req-jboom\): java\.lang\.IllegalStateException: failed on boom\n.*\tat testkit\.Misc\.fail\(Misc\.java:\d+\)/
    )
    assert.ok(!log().includes('req-jconflict'), 'a ServiceException is the method’s answer, not a fault')
    for (let k = 0; k < 14; k++) await post(p.url, '/java-testkit/misc/fail', '"again"')
    await post(p.url, '/java-testkit/misc/fail', '"last"', { ...JSON_CT, 'X-PLATFORM-Request-ID': 'req-jlast' })
    // Another method's fault, logged after them on the same stream: once it is read, so are they.
    await post(p.url, '/java-testkit/misc/failOther', '"x"', { ...JSON_CT, 'X-PLATFORM-Request-ID': 'req-jmarker' })
    await until(() => log().includes('req-jmarker'), 5000, 'the marker in the instance log')
    assert.equal(log().match(/misc\.fail threw/g)?.length, 10)
    assert.ok(!log().includes('req-jlast'))
  })
})

test('an overloaded method name in a remotely enabled service stops the start, naming the service and the name', () => {
  const sources = {
    'shop/Orders.java': `package shop;
public class Orders {
  public Integer total(Integer a) { return a; }
  public Integer total(Integer a, Integer b) { return a + b; }
}
`
  }
  const check = (enabled: string[]): { status: number | null; stdout: string; stderr: string } =>
    spawnSync(
      'java',
      [
        '-cp',
        hostClassPath(),
        'platform.host.Host',
        '--check',
        javaPackage('shop', {
          sources,
          resources: { 'META-INF/shop.xml': springContext({ orders: 'shop.Orders' }, enabled) },
          config: { applicationContext: 'META-INF/shop.xml' }
        })
      ],
      { encoding: 'utf8' }
    )
  const refused = check(['orders'])
  assert.equal(refused.status, 78)
  assert.match(
    refused.stderr,
    /^microservice failed to start: service 'orders' \(shop\.Orders\) has two methods named 'total': method names must not be overloaded/m
  )
  // Not remotely enabled, the overload is nobody's business: no URL can name it.
  const hidden = check(['nothing'])
  assert.equal(hidden.status, 0, hidden.stderr)
  assert.match(hidden.stdout, /"name":"orders","remotelyEnabled":false/)
})

describe('a Java host on its own, reached over TCP with a shared secret', () => {
  const SECRET_ENV = 'JAVA_HOST_TEST_SECRET'
  let host: ChildProcess
  let out = ''
  let port = 0
  before(async () => {
    port = await freePort()
    host = spawn(
      process.execPath,
      [
        CLI,
        'host',
        builtPackage(join(ROOT, 'examples', 'java-example')),
        '--listen',
        `tcp:127.0.0.1:${port}`,
        '--secret-env',
        SECRET_ENV
      ],
      {
        env: { ...process.env, [SECRET_ENV]: 'the right secret' },
        stdio: ['ignore', 'pipe', 'pipe']
      }
    )
    host.stdout!.on('data', (d: Buffer) => (out += d.toString()))
    host.stderr!.on('data', (d: Buffer) => (out += d.toString()))
    await until(() => out.includes('listening on'), 20000, `the Java host to listen: ${out}`)
  })
  after(async () => {
    if (host.exitCode !== null) return
    await new Promise((r) => {
      host.once('exit', r)
      host.kill('SIGTERM')
    })
  })

  for (const [name, secret, connected] of [
    ['the right secret', 'the right secret', true],
    ['another secret', 'not the secret', false]
  ] as const) {
    test(`a gateway with ${name}: ${connected ? 'connected and answered' : 'refused, and the host says why'}`, async () => {
      process.env.JAVA_HOST_GATEWAY_SECRET = secret
      const platform = new Platform(
        testConfig({
          MICROSERVICES: {
            remote: [{ name: 'java-example', host: '127.0.0.1', port, secretEnv: 'JAVA_HOST_GATEWAY_SECRET' }]
          }
        }),
        TEST_PLATFORM_OPTIONS
      )
      const gwPort = await platform.start([])
      try {
        const url = `http://127.0.0.1:${gwPort}`
        if (connected) {
          const call = (): Promise<{ status: number; text: string }> =>
            post(url, '/java-example/calculator/multiply', '{"a":6,"b":7}')
          await until(async () => (await call()).status === 200, 10000, 'connected')
          assert.equal((await call()).text, '{"result":42}')
        } else {
          await until(() => out.includes('the Hello does not prove the shared secret'), 10000, `the refusal: ${out}`)
          const r = await post(url, '/java-example/calculator/multiply', '{"a":6,"b":7}')
          assert.ok([404, 503].includes(r.status), r.text)
        }
      } finally {
        await platform.stop()
      }
    })
  }
})

test('microservice host: the Java host does not outlive the command (its stdin is its lifeline)', async () => {
  const port = await freePort()
  const cli = spawn(
    process.execPath,
    [CLI, 'host', builtPackage(join(ROOT, 'examples', 'java-example')), '--listen', `tcp:127.0.0.1:${port}`],
    { stdio: ['ignore', 'pipe', 'pipe'] }
  )
  let out = ''
  cli.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  cli.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  await until(() => /listening on .* \(pid \d+/.test(out), 20000, `the Java host to listen: ${out}`)
  const pid = Number(/\(pid (\d+)/.exec(out)![1])
  const alive = (): boolean => {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }
  assert.ok(alive())
  cli.kill('SIGKILL')
  await until(() => !alive(), 10000, `the Java host (pid ${pid}) to stop once the command is gone`)
})
