// The internal protocol reachable only by whom it should be: local instances on Unix sockets (a 0600
// socket in a 0700 directory, no TCP port), a remote instance on another address (127.0.0.2, as a
// second host) that serves calls only after both sides prove a shared secret; a stranger that
// connects to it, or a microservice that pretends to be it, is refused and logged.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { fork, type ChildProcess } from 'node:child_process'
import { statSync } from 'node:fs'
import { dirname } from 'node:path'
import { connect } from 'node:net'
import { createLogger } from '../../../src/common/observability/log'
import { Platform } from '../../../src/platform/platform'
import { HOST_FILE, hostEnv } from '../../../src/microservice/host/host-env'
import type { HostMessage } from '../../../src/microservice/host/host'
import { FrameReader, encodeFrame, type Frame } from '../../../src/common/protocol/frame'
import {
  startPlatform,
  testConfig,
  TEST_PLATFORM_OPTIONS,
  post,
  problem,
  until,
  TYPEKIT_DIR,
  type RunningPlatform
} from '../../helpers/platform'

const SECRET = 'correct horse battery staple'

/** Starts a microservice host on another address, with or without a secret; resolves with its port. */
async function remoteHost(secret: string | null): Promise<{ child: ChildProcess; port: number; out: string[] }> {
  const out: string[] = []
  const env = { ...hostEnv(), MICROSERVICE_LISTEN: 'tcp:127.0.0.2:0', MICROSERVICE_SECRET: secret ?? '' }
  const child = fork(HOST_FILE, [TYPEKIT_DIR], { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
  child.stdout!.on('data', (d: Buffer) => out.push(d.toString()))
  child.stderr!.on('data', (d: Buffer) => out.push(d.toString()))
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the remote host did not listen')), 10000)
    child.on('message', (m: HostMessage) => {
      clearTimeout(timer)
      resolve('port' in m.endpoint ? m.endpoint.port : 0)
    })
  })
  return { child, port, out }
}

describe('local instances on Unix sockets', () => {
  let p: RunningPlatform
  before(async () => {
    p = await startPlatform({}, [TYPEKIT_DIR])
  })
  after(() => p.stop())

  test('the instance listens on a 0600 socket in a 0700 directory, and calls work', async () => {
    const status = p.platform.manager.get('typekit')!.instances[0]!.status()
    assert.match(status.endpoint, /^unix:\/.+\.sock$/)
    assert.equal(status.port, 0, 'no TCP port')
    const path = status.endpoint.slice(5)
    assert.equal(statSync(path).mode & 0o777, 0o600)
    assert.equal(statSync(dirname(path)).mode & 0o777, 0o700)
    const r = await post(p.url, '/typekit/types/input', '{"a":1,"b":2}')
    assert.deepEqual([r.status, r.text], [200, '{"a":1,"b":2}'])
  })
})

describe('a remote instance on 127.0.0.2 with a shared secret', () => {
  let host: Awaited<ReturnType<typeof remoteHost>>
  let pretender: Awaited<ReturnType<typeof remoteHost>>
  let p: Platform
  const lines: string[] = []
  let url = ''
  before(async () => {
    host = await remoteHost(SECRET)
    pretender = await remoteHost(null)
    process.env.TEST_REMOTE_SECRET = SECRET
    const remote = [
      { name: 'typekit', host: '127.0.0.2', port: host.port, secretEnv: 'TEST_REMOTE_SECRET' },
      { name: 'pretender', host: '127.0.0.2', port: pretender.port, secretEnv: 'TEST_REMOTE_SECRET' }
    ]
    p = new Platform(testConfig({ MICROSERVICES: { remote }, DISPATCH: { connectTimeoutMs: 500 } }), {
      ...TEST_PLATFORM_OPTIONS,
      logger: createLogger('info', { write: (l: string) => lines.push(l) })
    })
    url = `http://127.0.0.1:${await p.start([])}`
  })
  after(async () => {
    await p?.stop()
    host?.child.kill()
    pretender?.child.kill()
  })

  test('serves calls once both sides proved the secret', async () => {
    await until(() => p.directory.get('typekit')?.unavailableReason() === null, 10000, 'the remote instance')
    const r = await post(url, '/typekit/types/input', '{"a":1,"b":2}')
    assert.equal(r.status, 200)
    assert.equal(r.text, '{"a":1,"b":2}')
  })

  test('a stranger that connects without the secret is refused and logged', async () => {
    const frames: Frame[] = []
    const closed = await new Promise<boolean>((resolve) => {
      const s = connect(host.port, '127.0.0.2')
      const reader = new FrameReader((f) => {
        frames.push(f)
        // Answer the challenge with a Hello that proves nothing.
        if (f.body === 'challenge')
          s.write(
            encodeFrame({
              hello: { protocolVersion: 1, gatewayId: 'stranger', nonce: Buffer.alloc(32), proof: Buffer.alloc(32) }
            })
          )
      })
      s.on('data', (d) => reader.push(d))
      s.on('error', () => undefined)
      s.on('close', () => resolve(true))
      setTimeout(() => resolve(false), 5000)
    })
    assert.equal(closed, true, 'the microservice closed the connection')
    assert.deepEqual(
      frames.map((f) => f.body),
      ['challenge'],
      'no catalog for a stranger'
    )
    await until(
      () =>
        /refused a connection from 127\.0\.0\.\d+: the Hello does not prove the shared secret/.test(host.out.join('')),
      5000,
      'the refusal in its log'
    )
  })

  test('a microservice that does not know the secret is refused by the gateway, and logged', async () => {
    await until(() => lines.some((l) => /refused microservice 'pretender'/.test(l)), 10000, 'the refusal')
    const r = await post(url, '/pretender/types/input', '{"a":1,"b":2}')
    assert.equal(r.status, 503)
    assert.equal(problem(r).code, 'MICROSERVICE_UNAVAILABLE')
  })
})
