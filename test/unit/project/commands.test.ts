// The two commands as an operator types them: --help, --version, and the server's --check.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { ROOT } from '../../helpers/root'

const MAIN = join(ROOT, 'dist', 'src', 'main.js')
const CLI = join(ROOT, 'bin', 'microservice')
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version

function run(file: string, args: string[], env: NodeJS.ProcessEnv = {}): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [file, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 20000
  })
  return { code: r.status, out: `${r.stdout}${r.stderr}` }
}

test('server: --help and --version print and exit 0, start nothing', () => {
  for (const flag of ['--help', '-h']) {
    const r = run(MAIN, [flag])
    assert.equal(r.code, 0)
    assert.match(r.out, /--check/)
  }
  const v = run(MAIN, ['--version'])
  assert.equal(v.code, 0)
  assert.equal(v.out.trim(), `invocation-gateway ${VERSION}`)
})

test('server: --check validates the config and exits; a misspelled key fails naming it', () => {
  const ok = run(MAIN, ['--check'])
  assert.equal(ok.code, 0, ok.out)
  assert.match(ok.out, /valid/)
  const file = join(mkdtempSync(join(tmpdir(), 'check-')), 'platform.json')
  writeFileSync(file, JSON.stringify({ ENTRY_POINTS: { WEB_SERVICE_FACADE_HTTP: { maxBodyByte: 1 } } }))
  const bad = run(MAIN, ['--check'], { PLATFORM_CONFIG: file })
  assert.equal(bad.code, 1)
  assert.match(bad.out, /ENTRY_POINTS\.WEB_SERVICE_FACADE_HTTP\.maxBodyByte: unknown key/)
  const unknownFlag = run(MAIN, ['--bogus'])
  assert.equal(unknownFlag.code, 1)
})

test('microservice: -h, --help and --version', () => {
  for (const flag of ['-h', '--help']) {
    const r = run(CLI, [flag])
    assert.equal(r.code, 0)
    assert.match(r.out, /usage: microservice/)
  }
  const v = run(CLI, ['--version'])
  assert.equal(v.code, 0)
  assert.equal(v.out.trim(), `microservice (invocation-gateway) ${VERSION}`)
})

test("microservice <command> --help: that command's forms, exit 0, nothing done", () => {
  const pack = run(CLI, ['pack', '--help'])
  assert.equal(pack.code, 0)
  assert.equal(
    pack.out.trim(),
    'usage: microservice\n  pack <dir> [zip]       zip a microservice directory (named after the microservice) for upload, into\n                         zip or beside the directory as <name>-<version>.zip'
  )
  const upload = run(CLI, ['upload', '-h'], { PLATFORM_CONFIG: '/nonexistent.json' })
  assert.equal(upload.code, 0, 'answered without reading a config')
  assert.equal([...upload.out.matchAll(/^ {2}upload </gm)].length, 2, 'both forms of upload')
  assert.match(upload.out, /ADMIN\.deployTokenEnv/)
  const status = run(CLI, ['status', '--help'])
  assert.match(status.out, /^ {2}status <name> {10}one microservice and its instances$/m)
  assert.doesNotMatch(status.out, /^ {2}stop /m)
})

test("server: --ready asks the configured admin port's /readyz: 0 on 200, 1 on 503 or no listener", async () => {
  const { execFile } = await import('node:child_process')
  const { createServer } = await import('node:http')
  let status = 200
  const server = createServer((req, res) => {
    res.statusCode = req.url === '/readyz' ? status : 404
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  const ready = (p: number): Promise<{ code: number; out: string }> =>
    new Promise((resolve) => {
      const env = { ...process.env, PLATFORM__ADMIN__host: '0.0.0.0', PLATFORM__ADMIN__port: String(p) }
      execFile(process.execPath, [MAIN, '--ready'], { env }, (err, stdout, stderr) =>
        resolve({ code: err === null ? 0 : Number(err.code), out: `${stdout}${stderr}` })
      )
    })
  try {
    assert.deepEqual(await ready(port), { code: 0, out: `http://127.0.0.1:${port}/readyz: 200\n` })
    status = 503
    assert.deepEqual(await ready(port), { code: 1, out: `http://127.0.0.1:${port}/readyz: 503\n` })
  } finally {
    await new Promise((resolve) => server.close(resolve))
  }
  const closed = await ready(port)
  assert.equal(closed.code, 1)
  assert.match(closed.out, new RegExp(`^http://127\\.0\\.0\\.1:${port}/readyz: .*ECONNREFUSED`))
})

test('microservice host: a drain that is not whole milliseconds, or a secret variable that is empty, is refused with what to do', () => {
  const dir = join(ROOT, 'dist', 'examples', 'example')
  const drain = run(CLI, ['host', dir, '--listen', 'tcp:127.0.0.1:0', '--drain-ms', '5s'])
  assert.equal(drain.code, 1, drain.out)
  assert.match(drain.out, /--drain-ms 5s: a whole number of milliseconds/)
  const secret = run(CLI, ['host', dir, '--secret-env', 'IGW_TEST_UNSET_SECRET'], { IGW_TEST_UNSET_SECRET: '' })
  assert.equal(secret.code, 1, secret.out)
  assert.match(secret.out, /the environment variable IGW_TEST_UNSET_SECRET holds no secret/)
})

test('a microservice host: MICROSERVICE_DRAIN_MS that is not whole milliseconds stops it before it listens, saying so', () => {
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'dist', 'src', 'microservice', 'host', 'host.js'), join(ROOT, 'dist', 'examples', 'example')],
    {
      env: { ...process.env, MICROSERVICE_DRAIN_MS: 'soon', MICROSERVICE_LISTEN: 'tcp:127.0.0.1:0' },
      encoding: 'utf8',
      timeout: 20000
    }
  )
  assert.equal(r.status, 78, r.stderr)
  assert.match(r.stderr, /MICROSERVICE_DRAIN_MS 'soon' is not a whole number of milliseconds/)
})
