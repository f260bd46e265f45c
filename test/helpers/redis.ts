// A real Redis for the tests of limits shared across gateways: Debian's redis-server (installed by
// scripts/ensure-debian.sh when missing) on a free loopback port, nothing written to disk, stopped
// and started again on the same port to play an outage.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { freePort } from './nginx'
import { ROOT } from './root'

export interface RunningRedis {
  port: number
  url: string
  /** Stops it (SIGKILL: an outage, not a shutdown); its counts are gone with it. */
  stop(): Promise<void>
  /** Starts it again on the same port. */
  start(): Promise<void>
}

export async function startRedis(): Promise<RunningRedis> {
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'redis-server:redis-server'], { stdio: 'inherit' })
  const port = await freePort()
  let child: ChildProcess | null = null
  const start = async (): Promise<void> => {
    const c = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] }
    )
    child = c
    await new Promise<void>((resolve, reject) => {
      let out = ''
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000)
      c.stdout!.on('data', (d: Buffer) => {
        out += d.toString()
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer)
          resolve()
        }
      })
      c.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`redis-server exited ${code}: ${out}`))
      })
    })
  }
  const stop = async (): Promise<void> => {
    const c = child
    if (c === null || c.exitCode !== null) return
    const exited = new Promise((resolve) => c.once('exit', resolve))
    c.kill('SIGKILL')
    await exited
    child = null
  }
  await start()
  return { port, url: `redis://127.0.0.1:${port}`, stop, start }
}
