import { spawn, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { HOST_FILE, hostEnv } from '../../microservice/host/host-env'
import {
  JAVA_CLASSPATH_FILE,
  JAVA_HOST_MISSING,
  cgroupMemoryLimit,
  heapWithin,
  javaClassPath,
  javaExecutable,
  javaHostEnv,
  javaInstanceArgs,
  type JavaHostEnv
} from '../../microservice/host/java-host'
import { readMicroserviceConfig, type JavaMicroserviceConfig } from '../../microservice/host/package-config'
import { InternalError } from '../../common/errors/internal'
import { CliError } from '../cli-error'
import type { CommandLine } from '../command-line'
import { gcFlags } from '../../common/process/gc-flags'

/**
 * `microservice host DIR --listen tcp:HOST:PORT --secret-env NAME`: a microservice host on its own
 * (the process a platform starts for each instance), for a platform elsewhere to reach over TCP. The
 * shared secret is read from the environment variable NAME, never from the command line.
 * `--listen tls:HOST:PORT --tls-cert F --tls-key F [--tls-ca F]`: the same over TLS, with the
 * gateways' certificates required and verified against the CAs of --tls-ca (docs/security.md).
 */
export async function hostCommand(line: CommandLine, javaClassPathFile = JAVA_CLASSPATH_FILE): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...line.args],
    allowPositionals: true,
    options: {
      listen: { type: 'string', default: 'tcp:0.0.0.0:7000' },
      'secret-env': { type: 'string' },
      'drain-ms': { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'tls-ca': { type: 'string' }
    }
  })
  const dir = positionals[0]
  if (dir === undefined || positionals.length > 1)
    throw new CliError(
      'usage: microservice host <dir> [--listen tcp:HOST:PORT | tls:HOST:PORT --tls-cert F --tls-key F [--tls-ca F]] [--secret-env NAME] [--drain-ms MS]'
    )
  const tls = values.listen.startsWith('tls:')
  if (tls && (values['tls-cert'] === undefined || values['tls-key'] === undefined))
    throw new CliError(`--listen ${values.listen}: TLS needs --tls-cert and --tls-key (PEM files)`)
  if (!tls && [values['tls-cert'], values['tls-key'], values['tls-ca']].some((v) => v !== undefined))
    throw new CliError('--tls-cert, --tls-key and --tls-ca go with --listen tls:HOST:PORT')
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
  if (secretEnv === undefined && !/^(tcp|tls):(127\.|localhost:|\[::1\])/.test(values.listen))
    console.error(
      `microservice host: listening on ${values.listen} without a shared secret; anyone who reaches it can call it (use --secret-env)`
    )
  const abs = resolve(dir)
  const java = javaConfigOf(abs)
  let heapMb = 0
  if (java !== null) {
    const limit = cgroupMemoryLimit()
    heapMb = heapWithin(java.memory.maxOldSpaceMb, limit)
    if (heapMb < java.memory.maxOldSpaceMb)
      console.error(
        `microservice host: the memory limit is ${Math.round(limit! / 2 ** 20)} MB: the JVM's heap is ${heapMb} MB, three quarters of it, not memory.maxOldSpaceMb's ${java.memory.maxOldSpaceMb} MB`
      )
  }
  const child =
    java !== null
      ? spawnJava(abs, heapMb, javaClassPathFile, {
          listen: values.listen,
          secret,
          drainMs: drain,
          managed: false,
          ...(tls
            ? {
                tls: {
                  certFile: resolve(values['tls-cert']!),
                  keyFile: resolve(values['tls-key']!),
                  caFile: values['tls-ca'] !== undefined ? resolve(values['tls-ca']) : null
                }
              }
            : {})
        })
      : // The IPC channel is the host's lifeline: if this process dies (SIGKILL), the host stops too.
        spawn(process.execPath, [...gcFlags(), HOST_FILE, abs], {
          stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
          env: {
            ...hostEnv(),
            MICROSERVICE_LISTEN: values.listen,
            MICROSERVICE_SECRET: secret,
            ...(drain === undefined ? {} : { MICROSERVICE_DRAIN_MS: drain }),
            ...(tls
              ? {
                  MICROSERVICE_TLS_CERT_FILE: resolve(values['tls-cert']!),
                  MICROSERVICE_TLS_KEY_FILE: resolve(values['tls-key']!),
                  ...(values['tls-ca'] !== undefined ? { MICROSERVICE_TLS_CA_FILE: resolve(values['tls-ca']) } : {})
                }
              : {})
          }
        })
  // A signal to this process alone is passed on; a terminal's reaches both, and the host stops once.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal))
  return await new Promise<number>((done) => {
    child.on('exit', (code) => done(code ?? 1))
    // No such program (a java package on a machine without a JDK): there is no exit to wait for.
    child.on('error', (err) => {
      console.error(`microservice failed to start: cannot run ${child.spawnfile}: ${err.message}`)
      done(78)
    })
  })
}

/**
 * The package's config when it is a java one. A config that cannot be read goes to the Node host,
 * which says what is wrong with it as it always has: `microservice failed to start`, exit 78.
 */
function javaConfigOf(dir: string): JavaMicroserviceConfig | null {
  let config
  try {
    config = readMicroserviceConfig(dir)
  } catch (err) {
    if (err instanceof InternalError && err.code === 'IGW_MICROSERVICE_CONFIG') return null
    throw err
  }
  return config.runtime === 'java' ? config : null
}

/**
 * The Java host for a java package. Unmanaged: a signal drains and stops it as it does the Node host;
 * its stdin is a pipe from this process, its lifeline: if this process dies (SIGKILL), the pipe ends
 * and the host stops, as the Node host does when its IPC channel closes. The
 * heap is the package's memory.maxOldSpaceMb; no heap dump, since a pod's file system is read-only.
 */
function spawnJava(dir: string, heapMb: number, classPathFile: string, env: JavaHostEnv): ChildProcess {
  const classPath = javaClassPath(classPathFile)
  if (classPath === null) throw new CliError(JAVA_HOST_MISSING, 'IGW_JAVA_HOST')
  const args = javaInstanceArgs({ classPath, dir, heapMb, heapDumpDir: null })
  return spawn(javaExecutable(), args, {
    stdio: ['pipe', 'inherit', 'inherit'],
    env: javaHostEnv({ ...env, lifeline: true })
  })
}
