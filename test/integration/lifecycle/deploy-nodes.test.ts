// One deploy for every node, as an operator runs it: `microservice upload ZIP --node URL --node URL`
// against two platforms behind the generated nginx under steady load. Each node gets the package only
// after the one before serves it alone; no call fails during the rollout or the rollback; a node that
// cannot be reached stops the rollout and the command says where each node stands.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { startNginx, freePort, type RunningNginx } from '../../helpers/nginx'
import {
  startPlatformProcess,
  type PlatformProcess,
  type PlatformProcessOptions
} from '../../helpers/processes/platform-process'
import { failures, underLoad } from '../../helpers/load'
import { EXAMPLE_DIR, until } from '../../helpers/platform'
import { zipDirectory } from '../../../src/platform/package/zip'

const CLI = join(__dirname, '..', '..', '..', '..', 'bin', 'microservice')
const TOKEN = 'deploy token of the deploy-nodes test'

/** A package of the example's code as microservice `name` at `version`. */
async function examplePackage(version: string, name = 'example'): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), `${name}-${version}-`)), name)
  cpSync(EXAMPLE_DIR, dir, { recursive: true })
  const file = join(dir, 'microservice.json')
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), name, version }))
  const zip = join(dir, '..', `${name}-${version}.zip`)
  await zipDirectory(dir, name, zip)
  return zip
}

function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, IGW_DEPLOY_TOKEN: TOKEN } }, (e, out, err) =>
      resolve({ code: e === null ? 0 : Number(e.code), out, err })
    )
  })
}

interface NodeStatus {
  microservices: Array<{ name: string; versions: string[] }>
  arriving: string[]
}

async function statusOf(node: string): Promise<NodeStatus> {
  return (await (await fetch(`${node}/status`)).json()) as NodeStatus
}

async function versionOn(node: string, name = 'example'): Promise<string[]> {
  return (await statusOf(node)).microservices.find((m) => m.name === name)?.versions ?? []
}

describe('microservice upload --node: one gated rollout to every node, and rollback', () => {
  let nginx: RunningNginx
  const nodes: PlatformProcess[] = []
  const admins: string[] = []
  const gateways: string[] = []

  before(async () => {
    const options: PlatformProcessOptions[] = []
    for (let k = 0; k < 2; k++)
      options.push({
        port: await freePort(),
        edgePort: await freePort(),
        adminPort: await freePort(),
        env: {
          PLATFORM__ADMIN__deployTokenEnv: 'IGW_DEPLOY_TOKEN',
          IGW_DEPLOY_TOKEN: TOKEN,
          PLATFORM__PLATFORM__drainGraceMs: '0'
        }
      })
    for (const o of options) {
      nodes.push(startPlatformProcess(o))
      admins.push(`http://127.0.0.1:${o.adminPort}`)
      gateways.push(`http://127.0.0.1:${o.port}`)
    }
    await Promise.all(nodes.map((n) => n.ready()))
    nginx = await startNginx(
      options.map((o) => ({ host: '127.0.0.1', gatewayPort: o.port, edgePort: o.edgePort })),
      { maxBodyBytes: 16 * 1024 * 1024, executingTimeoutMs: 240000 }
    )
  })
  after(async () => {
    await nginx?.stop()
    for (const n of nodes) n.signal('SIGKILL', true)
  })

  test('a new version to both nodes under load: node by node, no call fails; then rollback', async (t) => {
    const zip = await examplePackage('1.1.0')
    let rollout = { code: -1, out: '', err: '' }
    const during = await underLoad(nginx.url, async () => {
      rollout = await cli(['upload', zip, '--node', admins[0]!, '--node', admins[1]!])
    })
    assert.equal(rollout.code, 0, rollout.err)
    assert.deepEqual(rollout.out.trim().split('\n'), [
      `${admins[0]}: deployed example 1.1.0; serving example 1.1.0`,
      `${admins[1]}: deployed example 1.1.0; serving example 1.1.0`
    ])
    assert.deepEqual(failures(during), {})
    assert.equal(during.wrong, 0)
    for (const a of admins) assert.deepEqual(await versionOn(a), ['1.1.0'])

    let back = { code: -1, out: '', err: '' }
    const rollingBack = await underLoad(nginx.url, async () => {
      back = await cli(['rollback', 'example', '--node', admins[0]!, '--node', admins[1]!])
    })
    assert.equal(back.code, 0, back.err)
    assert.match(
      back.out,
      /: rolled example back to 1\.0\.0; serving example 1\.0\.0\n.*: rolled example back to 1\.0\.0; serving example 1\.0\.0/
    )
    assert.deepEqual(failures(rollingBack), {})
    for (const a of admins) assert.deepEqual(await versionOn(a), ['1.0.0'])
    t.diagnostic(`${during.ok} calls during the rollout and ${rollingBack.ok} during the rollback, none failed`)
  })

  test('a microservice new to both nodes under load: announced first, so its calls wait on the node it has not reached; no 404', async (t) => {
    const zip = await examplePackage('1.0.0', 'fresh')
    const rollout = cli(['upload', zip, '--node', admins[0]!, '--node', admins[1]!])
    // Callers start once the rollout has begun: each node has it announced, or serves it already.
    await until(
      async () => {
        const views = await Promise.all(admins.map((a) => statusOf(a)))
        return views.every((v) => v.arriving.includes('fresh') || v.microservices.some((m) => m.name === 'fresh'))
      },
      20000,
      'fresh announced on both nodes'
    )
    let done = { code: -1, out: '', err: '' }
    const during = await underLoad(
      nginx.url,
      async () => {
        done = await rollout
      },
      500,
      'fresh'
    )
    assert.equal(done.code, 0, done.err)
    t.diagnostic(
      `${during.ok} calls for the new microservice during its rollout, failed: ${JSON.stringify(failures(during))}`
    )
    assert.deepEqual(failures(during), {})
    assert.equal(during.wrong, 0)
    assert.ok(during.ok > 50, `${during.ok} calls`)
    for (const a of admins) {
      assert.deepEqual(await versionOn(a, 'fresh'), ['1.0.0'])
      assert.deepEqual((await statusOf(a)).arriving, [])
    }
  })

  test('an announcement that runs out, or is withdrawn, gives the calls their 404', async () => {
    const expect = (seconds: string): Promise<Response> =>
      fetch(`${admins[1]}/microservices/nowhere/expect?seconds=${seconds}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}` }
      })
    assert.equal((await expect('soon')).status, 400)
    assert.equal((await expect('1')).status, 200)
    const held = await fetch(`${gateways[1]}/nowhere/calculator/multiply`, {
      method: 'POST',
      body: '{"a":1,"b":2}',
      headers: { 'Content-Type': 'application/json' }
    })
    assert.equal(held.status, 404, 'after the second it was announced for')
    assert.equal(((await held.json()) as { code: string }).code, 'UNKNOWN_MICROSERVICE')
    assert.equal((await expect('60')).status, 200)
    const waiting = fetch(`${gateways[1]}/nowhere/calculator/multiply`, {
      method: 'POST',
      body: '{"a":1,"b":2}',
      headers: { 'Content-Type': 'application/json' }
    })
    await new Promise((r) => setTimeout(r, 200))
    const withdrawn = (await expect('0')).json() as Promise<{ message: string }>
    assert.match((await withdrawn).message, /no longer wait/)
    assert.equal((await waiting).status, 404)
    assert.deepEqual((await statusOf(admins[1]!)).arriving, [])
  })

  test('a node that cannot be reached stops the rollout, and the command says where each node stands', async () => {
    const zip = await examplePackage('1.2.0')
    const gone = `http://127.0.0.1:${await freePort()}`
    const r = await cli(['upload', zip, '--node', admins[0]!, '--node', gone])
    assert.equal(r.code, 1)
    assert.match(r.out, new RegExp(`^${admins[0]}: deployed example 1\\.2\\.0; serving example 1\\.2\\.0$`, 'm'))
    assert.match(
      r.err,
      new RegExp(
        `stopped after 1 of 2 node\\(s\\); where example stands now:\\n  ${admins[0]}: 1\\.2\\.0\\n  ${gone}: unknown`
      )
    )
  })

  test('a deploy without the token is refused 401 and changes nothing', async () => {
    const zip = readFileSync(await examplePackage('9.9.9'))
    const r = await fetch(`${admins[1]}/deploy`, {
      method: 'POST',
      body: new Uint8Array(zip),
      headers: { Authorization: 'Bearer wrong' }
    })
    assert.equal(r.status, 401)
    assert.deepEqual(await versionOn(admins[1]!), ['1.0.0'])
    // A name that is not valid percent-encoding is a 400, not a crash of the admin listener.
    const bad = await fetch(`${admins[1]}/microservices/%E0%A4/rollback`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}` }
    })
    assert.equal(bad.status, 400)
    assert.match(((await bad.json()) as { message: string }).message, /not a valid percent-encoded name/)
    assert.equal((await fetch(`${admins[1]}/readyz`)).status, 200)
  })

  test('rollback on one platform through its control socket: back to the version the last deploy replaced', async () => {
    // Node 0 runs 1.2.0 (the stopped rollout above), which replaced 1.0.0.
    const config = join(mkdtempSync(join(tmpdir(), 'rollback-cli-')), 'platform.json')
    writeFileSync(config, JSON.stringify({ PLATFORM: { controlSocket: join(nodes[0]!.home, 'control.sock') } }))
    const run = (): Promise<{ code: number; out: string }> =>
      new Promise((resolve) =>
        execFile(
          process.execPath,
          [CLI, 'rollback', 'example'],
          { env: { ...process.env, PLATFORM_CONFIG: config } },
          (e, out, err) => resolve({ code: e === null ? 0 : Number(e.code), out: out + err })
        )
      )
    assert.deepEqual(await run(), { code: 0, out: 'rolled example back to 1.0.0\n' })
    assert.deepEqual(await versionOn(admins[0]!), ['1.0.0'])
    assert.deepEqual(await run(), { code: 0, out: 'rolled example back to 1.2.0\n' }, 'a second rollback rolls forward')
  })

  test('the stopped rollout is taken up again by the same upload; once every node runs it, it is refused', async () => {
    // Node 0 runs 1.2.0 again (the rollback above rolled forward), node 1 an older version.
    const zip = await examplePackage('1.2.0')
    assert.notDeepEqual(await versionOn(admins[1]!), ['1.2.0'])
    const resumed = await cli(['upload', zip, '--node', admins[0]!, '--node', admins[1]!])
    assert.equal(resumed.code, 0, resumed.err)
    assert.deepEqual(await versionOn(admins[1]!), ['1.2.0'])
    const again = await cli(['upload', zip, '--node', admins[0]!, '--node', admins[1]!])
    assert.equal(again.code, 1)
    assert.match(again.err, new RegExp(`example 1\\.2\\.0 is deployed already on ${admins[0]}; .*--force`))
    const older = await cli(['upload', await examplePackage('1.1.0'), '--node', admins[0]!, '--node', admins[1]!])
    assert.equal(older.code, 1)
    assert.match(older.err, /example 1\.2\.0 is deployed on .*, newer than 1\.1\.0; .*rollback example/)
  })
})
