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

/**
 * redis-server under a watch: killed (SIGKILL, an outage) when the watch gets SIGTERM, and also when the
 * test process that started it is gone without stopping it. A runner that kills a test at its first
 * failure (Stryker's, once per mutant killed) left one redis-server behind each time: 416 were found
 * idle after a mutation run, each waking ten times a second.
 */
const WATCHED = `
redis-server "$@" &
r=$!
trap 'kill -9 $r 2>/dev/null; exit 0' TERM
while kill -0 $PPID 2>/dev/null && kill -0 $r 2>/dev/null; do sleep 0.2; done
kill -9 $r 2>/dev/null
wait $r
`

export async function startRedis(): Promise<RunningRedis> {
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'redis-server:redis-server'], { stdio: 'inherit' })
  const port = await freePort()
  let child: ChildProcess | null = null
  const start = async (): Promise<void> => {
    const c = spawn(
      'bash',
      [
        '-c',
        WATCHED,
        'redis-server',
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'no'
      ],
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
    c.kill('SIGTERM')
    await exited
    child = null
  }
  await start()
  return { port, url: `redis://127.0.0.1:${port}`, stop, start }
}
