// A microservice host started with the documented command, as on another machine:
// `microservice host DIR --listen tcp|tls:127.0.0.1:PORT --secret-env NAME [more]`, waited for until it listens.
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { until } from '../platform'
import { freePort } from '../nginx'

const CLI = join(__dirname, '..', '..', '..', '..', 'bin', 'microservice')

export interface RemoteHost {
  child: ChildProcess
  port: number
  /** Its stdout and stderr so far. */
  out: () => string
}

export async function startRemoteHost(
  dir: string,
  secretEnv: string,
  secret: string,
  options: { scheme?: 'tcp' | 'tls'; args?: string[]; env?: NodeJS.ProcessEnv; port?: number } = {}
): Promise<RemoteHost> {
  const port = options.port ?? (await freePort())
  const child = spawn(
    process.execPath,
    [
      CLI,
      'host',
      dir,
      '--listen',
      `${options.scheme ?? 'tcp'}:127.0.0.1:${port}`,
      '--secret-env',
      secretEnv,
      ...(options.args ?? [])
    ],
    { env: { ...process.env, ...options.env, [secretEnv]: secret }, stdio: ['ignore', 'pipe', 'pipe'] }
  )
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  await until(() => out.includes('listening on'), 15000, `the host of ${dir} to listen: ${out}`)
  return { child, port, out: () => out }
}

/** SIGTERM, and its exit. */
export function stopRemoteHost(h: RemoteHost | undefined): Promise<void> {
  if (h === undefined || h.child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    h.child.once('exit', () => resolve())
    h.child.kill('SIGTERM')
  })
}
