import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { HOST_FILE, hostEnv } from '../../microservice/host/host-env'
import { CliError } from '../cli-error'
import { gcFlags } from '../../common/process/gc-flags'

/**
 * `microservice host DIR --listen tcp:HOST:PORT --secret-env NAME`: a microservice host on its own
 * (the process a platform starts for each instance), for a platform elsewhere to reach over TCP. The
 * shared secret is read from the environment variable NAME, never from the command line.
 */
export async function hostCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      listen: { type: 'string', default: 'tcp:0.0.0.0:7000' },
      'secret-env': { type: 'string' },
      'drain-ms': { type: 'string' }
    }
  })
  const dir = positionals[0]
  if (dir === undefined || positionals.length > 1)
    throw new CliError('usage: microservice host <dir> [--listen tcp:HOST:PORT] [--secret-env NAME] [--drain-ms MS]')
  const drain = values['drain-ms']
  if (drain !== undefined && !/^\d+$/.test(drain))
    throw new CliError(`--drain-ms ${drain}: a whole number of milliseconds (how long a SIGTERM waits for calls)`)
  const secretEnv = values['secret-env']
  const secret = secretEnv === undefined ? '' : (process.env[secretEnv] ?? '')
  if (secretEnv !== undefined && secret === '')
    throw new CliError(
      `--secret-env ${secretEnv}: the environment variable ${secretEnv} holds no secret`,
      'IGW_SECRET_MISSING'
    )
  if (secretEnv === undefined && !/^tcp:(127\.|localhost:|\[::1\])/.test(values.listen))
    console.error(
      `microservice host: listening on ${values.listen} without a shared secret; anyone who reaches it can call it (use --secret-env)`
    )
  // The IPC channel is the host's lifeline: if this process dies (SIGKILL), the host stops too.
  const child = spawn(process.execPath, [...gcFlags(), HOST_FILE, resolve(dir)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: {
      ...hostEnv(),
      MICROSERVICE_LISTEN: values.listen,
      MICROSERVICE_SECRET: secret,
      ...(drain === undefined ? {} : { MICROSERVICE_DRAIN_MS: drain })
    }
  })
  // A signal to this process alone is passed on; a terminal's reaches both, and the host stops once.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal))
  return await new Promise<number>((done) => child.on('exit', (code) => done(code ?? 1)))
}
