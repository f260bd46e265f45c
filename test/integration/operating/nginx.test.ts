// Many platforms, one edge: a real nginx running the configuration `microservice edge nginx-config`
// writes, in front of two real platforms. Calls spread over both; a deploy reaches both and the UI
// through nginx shows the new description; a POST in flight on a node that dies is answered 502 and
// never sent to the other; with one node down every call succeeds on the other, each answered once.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { execFile, execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { startDeployPlatform, cli, packCopy, type DeployPlatform } from '../../helpers/processes/deploy'
import { post, until, EXAMPLE_DIR, TESTKIT_DIR } from '../../helpers/platform'
import { startNginx, type RunningNginx } from '../../helpers/nginx'
import { ROOT } from '../../helpers/root'

const work = mkdtempSync(join(tmpdir(), 'nginx-test-'))

async function deployEverywhere(nodes: DeployPlatform[], zip: string): Promise<void> {
  for (const n of nodes) {
    const r = await cli(n.configFile, 'upload', zip)
    assert.equal(r.code, 0, r.stderr)
  }
}

describe('nginx in front of two platforms', () => {
  let a: DeployPlatform
  let b: DeployPlatform
  let nginx: RunningNginx
  before(async () => {
    a = await startDeployPlatform()
    b = await startDeployPlatform()
    await deployEverywhere([a, b], await packCopy(EXAMPLE_DIR, work))
    await deployEverywhere([a, b], await packCopy(TESTKIT_DIR, work))
    nginx = await startNginx(
      [a, b].map((n) => ({ host: '127.0.0.1', gatewayPort: n.platform.port, edgePort: n.platform.edgePort }))
    )
  })
  after(async () => {
    await nginx?.stop()
    await a?.stop()
    await b?.stop()
  })

  test('calls through the edge spread over both platforms', async () => {
    const before = [a.platform.gateway.calls.answered, b.platform.gateway.calls.answered]
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        post(nginx.url, '/_eapi/ELASTIC_HTTP/example/calculator/multiply', '{"a":6,"b":7}')
      )
    )
    assert.deepEqual(new Set(answers.map((r) => `${r.status} ${r.text}`)), new Set(['200 {"result":42}']))
    const served = [a.platform.gateway.calls.answered - before[0]!, b.platform.gateway.calls.answered - before[1]!]
    assert.equal(served[0]! + served[1]!, 40, 'each call answered by exactly one platform')
    assert.ok(served[0]! > 0 && served[1]! > 0, `both platforms served: ${served.join(' / ')}`)
  })

  test('ApacheBench (HTTP/1.0, keep-alive) gets every call answered through the edge, and none straight', async () => {
    execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'ab:apache2-utils'], { stdio: 'inherit' })
    const body = join(work, 'ab-body.json')
    writeFileSync(body, '{"a":6,"b":7}')
    const path = '/_eapi/ELASTIC_HTTP/example/calculator/multiply'
    // Asynchronously: the platforms run in this process, and a blocked event loop would answer nothing.
    const ab = (url: string, n: number): Promise<{ code: number; out: string }> =>
      new Promise((resolve) => {
        const args = ['-k', '-q', '-s', '3', '-n', String(n), '-c', '4', '-p', body, '-T', 'application/json', url]
        execFile('ab', args, { timeout: 30_000 }, (err, stdout, stderr) =>
          resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, out: `${stdout}${stderr}` })
        )
      })
    const through = await ab(`${nginx.url}${path}`, 400)
    assert.equal(through.code, 0, through.out)
    assert.match(through.out, /^Complete requests:\s+400$/m)
    assert.match(through.out, /^Failed requests:\s+0$/m)
    assert.match(through.out, /^Keep-Alive requests:\s+400$/m)
    assert.doesNotMatch(through.out, /Non-2xx responses/)
    // Straight to the gateway, uWebSockets.js does not answer HTTP/1.0 (README, Known limits): ab times out.
    const straight = await ab(`http://127.0.0.1:${a.platform.port}/example/calculator/multiply`, 1)
    assert.notEqual(straight.code, 0, straight.out)
  })

  test("nginx removes what a client claims and passes the client's address", async () => {
    const r = await post(nginx.url, '/_eapi/ELASTIC_HTTP/example/diagnostics/context', '[]', {
      'Content-Type': 'application/json',
      'X-PLATFORM-API-ID': 'RMC',
      'X-PLATFORM-User': 'mallory',
      'X-PLATFORM-Privilege-Names': 'admin',
      'X-PLATFORM-IP': '203.0.113.7'
    })
    const c = JSON.parse(r.text) as { user: string | null; privilegeNames: string[]; ip: string; privileged: boolean }
    assert.deepEqual([c.user, c.privilegeNames, c.ip, c.privileged], [null, [], '127.0.0.1', false])
  })

  test('the UI and the description through nginx; a deploy to every node shows the new version', async () => {
    const page = await fetch(`${nginx.url}/_swagger/example`)
    assert.equal(page.status, 200)
    assert.match(await page.text(), /swagger-ui-bundle\.js/)
    await deployEverywhere(
      [a, b],
      await packCopy(EXAMPLE_DIR, work, (c) => {
        c.version = '3.1.4'
      })
    )
    // Both nodes' edges answer in turn: every answer must be the new version's description.
    for (let k = 0; k < 6; k++) {
      const r = await fetch(`${nginx.url}/_swagger/example/openapi.json`)
      assert.equal(r.status, 200)
      assert.equal(((await r.json()) as { info: { version: string } }).info.version, '3.1.4')
    }
  })

  test('a POST in flight on a node that dies is answered 502 and never sent to the other node', async () => {
    const counts = (): number[] => [a.platform.gateway.calls.answered, b.platform.gateway.calls.answered]
    const call = post(nginx.url, '/_eapi/ELASTIC_HTTP/testkit/slow/sleep', '2000', {
      'Content-Type': 'application/json'
    })
    await until(() => a.platform.gateway.inFlight + b.platform.gateway.inFlight === 1, 5000, 'the call to reach a node')
    const victim = a.platform.gateway.inFlight === 1 ? a : b
    const other = victim === a ? b : a
    const otherBefore = other.platform.gateway.calls.answered
    // The node's HTTP side dies at once: every connection is closed under the call.
    await victim.platform.gateway.close({ timeoutMs: 0 })
    const r = await call
    assert.equal(r.status, 502)
    assert.equal(other.platform.gateway.calls.answered, otherBefore, 'the other node never saw the call')
    assert.equal(other.platform.gateway.inFlight, 0)

    // With that node down, every call succeeds on the other, each answered exactly once.
    const start = counts()
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        post(nginx.url, '/_eapi/ELASTIC_HTTP/example/calculator/multiply', '{"a":2,"b":3}')
      )
    )
    assert.deepEqual(
      answers.map((x) => x.status),
      Array(20).fill(200)
    )
    const end = counts()
    const otherIndex = other === a ? 0 : 1
    assert.equal(end[otherIndex]! - start[otherIndex]!, 20)
  })
})
