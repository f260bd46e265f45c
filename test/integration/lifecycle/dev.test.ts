// `microservice dev DIR` as an author uses it: the directory deployed to the running platform, then
// again on every save; a save that breaks the code is refused with its place while the last good
// version keeps answering; Ctrl+C ends it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { CLI, startDeployPlatform } from '../../helpers/processes/deploy'
import { post, until } from '../../helpers/platform'

function greeter(greeting: string): string {
  return `const { t, method, service, defineMicroservice } = require('invocation-gateway/runtime')
module.exports = defineMicroservice({
  services: [service('greetings', [
    method('greet', { params: [t.String], returns: t.String, handler: (ctx, name) => '${greeting}, ' + name })
  ])],
  platformRegularExpressionToRemotelyEnabled: ['greetings']
})
`
}

test('microservice dev: deployed on start and on every save; a broken save is refused with its place', async () => {
  const d = await startDeployPlatform()
  const dir = join(mkdtempSync(join(tmpdir(), 'dev-')), 'greeter')
  mkdirSync(dir)
  writeFileSync(
    join(dir, 'microservice.json'),
    JSON.stringify({ name: 'greeter', version: '0.1.0', entry: 'index.js' })
  )
  writeFileSync(join(dir, 'index.js'), greeter('Hello'))
  const child = spawn(process.execPath, [CLI, 'dev', dir], {
    env: { ...process.env, PLATFORM_CONFIG: d.configFile },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  child.stdout.on('data', (b: Buffer) => (out += b.toString()))
  child.stderr.on('data', (b: Buffer) => (out += b.toString()))
  const greet = async (): Promise<string> => (await post(d.url, '/greeter/greetings/greet', '"Ada"')).text
  const deployed = (): number => out.match(/ deployed greeter 0\.1\.0\n/g)?.length ?? 0
  try {
    await until(() => deployed() === 1, 30000, `the first deploy: ${out}`)
    assert.match(
      out,
      /^watching .*greeter: every change is packed and deployed to the local platform; Ctrl\+C stops\n/m
    )
    assert.equal(await greet(), '"Hello, Ada"')

    writeFileSync(join(dir, 'index.js'), greeter('Hi'))
    await until(() => deployed() === 2, 30000, `the deploy after a save: ${out}`)
    assert.equal(await greet(), '"Hi, Ada"')

    writeFileSync(join(dir, 'index.js'), greeter('Oops').replace('params: [t.String]', 'params: [t.String'))
    await until(() => out.includes('not deployed'), 30000, `the refusal: ${out}`)
    assert.match(
      out,
      /\d\d:\d\d:\d\d not deployed: cannot load the microservice to describe its API: index\.js:4:\d+: SyntaxError: /
    )
    assert.equal(await greet(), '"Hi, Ada"', 'the last good version answers')
    assert.equal(deployed(), 2)

    child.kill('SIGINT')
    assert.equal(await new Promise((r) => child.once('exit', r)), 0)
  } finally {
    child.kill('SIGKILL')
    await d.stop()
  }
})
