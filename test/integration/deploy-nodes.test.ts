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
import { startNginx, freePort, type RunningNginx } from '../helpers/nginx'
import { startPlatformProcess, type PlatformProcess, type PlatformProcessOptions } from '../helpers/platform-process'
import { failures, underLoad } from '../helpers/load'
import { EXAMPLE_DIR } from '../helpers/platform'
import { zipDirectory } from '../../src/platform/package/zip'

const CLI = join(__dirname, '..', '..', '..', 'bin', 'microservice')
const TOKEN = 'deploy token of the deploy-nodes test'

async function examplePackage(version: string): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), `example-${version}-`)), 'example')
  cpSync(EXAMPLE_DIR, dir, { recursive: true })
  const file = join(dir, 'microservice.json')
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), version }))
  const zip = join(dir, '..', `example-${version}.zip`)
  await zipDirectory(dir, 'example', zip)
  return zip
}

function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, IGW_DEPLOY_TOKEN: TOKEN } }, (e, out, err) =>
      resolve({ code: e === null ? 0 : Number(e.code), out, err })
    )
  })
}

async function versionOn(node: string): Promise<string[]> {
  const body = (await (await fetch(`${node}/status`)).json()) as {
    microservices: Array<{ name: string; versions: string[] }>
  }
  return body.microservices.find((m) => m.name === 'example')?.versions ?? []
}

describe('microservice upload --node: one gated rollout to every node, and rollback', () => {
  let nginx: RunningNginx
  const nodes: PlatformProcess[] = []
  const admins: string[] = []

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
})
