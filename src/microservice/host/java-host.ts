// The Java host (platform.host.Host, built into dist/java/ by scripts/ensure-java-host.sh): where its
// class path is, the command lines that run it, and the line it prints once it listens. It runs a
// "runtime": "java" package as host.js runs a node one, over the same internal protocol.
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { InternalError } from '../../common/errors/internal'
import { parseEndpoint, type Endpoint } from '../../common/protocol/endpoint'
import { JUL_ONE_LINE } from './jul-levels'

/** One line: the host's whole class path. No file: this platform was built without a Java host. */
export const JAVA_CLASSPATH_FILE = join(__dirname, '..', '..', '..', 'java', 'classpath')

export const JAVA_MAIN_CLASS = 'platform.host.Host'

/** What a platform without a Java host answers a java package: how to get one. */
export const JAVA_HOST_MISSING =
  'this platform has no Java host to run a "runtime": "java" package: build it with `bash scripts/ensure-java-host.sh` in the platform\'s directory (it installs the JDK and the jars it needs), then deploy again'

/** The host's class path, or null when this platform has none. */
export function javaClassPath(file: string = JAVA_CLASSPATH_FILE): string | null {
  if (!existsSync(file)) return null
  const line = readFileSync(file, 'utf8').trim()
  return line === '' ? null : line
}

/** The host's class path; throws JAVA_HOST_MISSING when there is none. */
export function requireJavaClassPath(file: string = JAVA_CLASSPATH_FILE): string {
  const classPath = javaClassPath(file)
  if (classPath === null) throw new InternalError('IGW_JAVA_HOST', JAVA_HOST_MISSING)
  return classPath
}

/** The java launcher: JAVA_HOME's when it is set (the JDK an operator chose), else the one on PATH. */
export function javaExecutable(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.JAVA_HOME
  return home !== undefined && home !== '' ? join(home, 'bin', 'java') : 'java'
}

export interface JavaInstanceLaunch {
  classPath: string
  /** The microservice directory. */
  dir: string
  /** -Xmx: the package's memory.maxOldSpaceMb, grown after each memory-error restart. */
  heapMb: number
  /** Where the JVM writes its heap dump when the heap runs out; null: none. */
  heapDumpDir: string | null
}

/**
 * The arguments of an instance's JVM. ExitOnOutOfMemoryError: a JVM whose heap ran out otherwise goes
 * on with threads that died mid-call; exiting lets the platform restart it with a larger heap.
 */
export function javaInstanceArgs(o: JavaInstanceLaunch): string[] {
  const args = [`-Xmx${o.heapMb}m`, '-XX:+ExitOnOutOfMemoryError', JUL_ONE_LINE]
  if (o.heapDumpDir !== null) args.push('-XX:+HeapDumpOnOutOfMemoryError', `-XX:HeapDumpPath=${o.heapDumpDir}`)
  return [...args, '-cp', o.classPath, JAVA_MAIN_CLASS, o.dir]
}

/**
 * The arguments of a short run of the host (`--check DIR`, `--describe DIR SEQUENCE API_ID`): the JIT's
 * first tier only, since the process lives for one load of the package.
 */
export function javaToolArgs(classPath: string, heapMb: number, tool: readonly string[]): string[] {
  return [`-Xmx${heapMb}m`, '-XX:TieredStopAtLevel=1', '-cp', classPath, JAVA_MAIN_CLASS, ...tool]
}

export interface JavaHostEnv {
  /** MICROSERVICE_LISTEN: unix:/path, tcp:host:port or tls:host:port. */
  listen: string
  /** With tls:…, the host's PEM files: its pair, and the CAs of the gateways' certificates it requires. */
  tls?: { certFile: string; keyFile: string; caFile: string | null }
  /** The internal protocol's shared secret; '' for none. */
  secret: string
  drainMs?: string
  /**
   * Started by a platform's manager: the host stops when told on stdin or when stdin ends, and only
   * logs SIGTERM and SIGINT. Unmanaged (`microservice host`), a signal drains and stops it.
   */
  managed: boolean
  /**
   * Unmanaged, but stdin is a pipe from the process that started it (`microservice host`): the host also
   * stops when stdin ends, so that it does not outlive that process (the Node host's IPC channel does the same).
   */
  lifeline?: boolean
}

/** The environment of an instance's JVM: this process's, with the host's variables set or removed. */
export function javaHostEnv(o: JavaHostEnv, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, MICROSERVICE_LISTEN: o.listen, MICROSERVICE_SECRET: o.secret }
  // Inherited from whoever started this process, they would say what this host was not told.
  delete env.MICROSERVICE_MANAGED
  delete env.MICROSERVICE_DRAIN_MS
  delete env.MICROSERVICE_LIFELINE
  delete env.MICROSERVICE_TLS_CERT_FILE
  delete env.MICROSERVICE_TLS_KEY_FILE
  delete env.MICROSERVICE_TLS_CA_FILE
  if (o.tls !== undefined) {
    env.MICROSERVICE_TLS_CERT_FILE = o.tls.certFile
    env.MICROSERVICE_TLS_KEY_FILE = o.tls.keyFile
    if (o.tls.caFile !== null) env.MICROSERVICE_TLS_CA_FILE = o.tls.caFile
  }
  if (o.managed) env.MICROSERVICE_MANAGED = '1'
  else if (o.lifeline === true) env.MICROSERVICE_LIFELINE = 'stdin'
  if (o.drainMs !== undefined) env.MICROSERVICE_DRAIN_MS = o.drainMs
  return env
}

/** What the host's listening line says. */
export interface ListeningLine {
  name: string
  version: string
  endpoint: Endpoint
  pid: number
}

/**
 * `microservice NAME VERSION listening on ENDPOINT (pid PID, … limit MB MB)`, the line both hosts print
 * once they listen: the Java host has no IPC channel, so this line is how the manager learns where.
 */
const LISTENING = /^microservice (\S+) (\S+) listening on (\S+) \(pid (\d+)[,)]/

export function parseListeningLine(line: string): ListeningLine | null {
  const m = LISTENING.exec(line)
  if (m === null) return null
  const endpoint = parseEndpoint(m[3]!)
  return endpoint === null ? null : { name: m[1]!, version: m[2]!, endpoint, pid: Number(m[4]) }
}

/**
 * Whether `announced` is where the instance was told to listen (`target`, its MICROSERVICE_LISTEN): the
 * same socket file, or the same host and (unless any port was asked for) port. A package's own code
 * can print a line that looks like the host's; it cannot make the platform call elsewhere.
 */
export function isListenTarget(target: Endpoint, announced: Endpoint): boolean {
  if ('path' in target) return 'path' in announced && announced.path === target.path
  return (
    !('path' in announced) && announced.host === target.host && (target.port === 0 || announced.port === target.port)
  )
}

/** The host's sentence when it cannot load a package (`microservice failed to start: REASON`). */
const FAILED = /microservice failed to start: (.*)/

/**
 * Runs the Java host once (`--check`, `--describe`) and resolves with what it printed; rejects with
 * the host's own reason when it names one, else with how it ended. Killed after `timeoutMs`.
 */
export function runJavaTool(
  classPath: string,
  heapMb: number,
  tool: readonly string[],
  timeoutMs: number,
  env: NodeJS.ProcessEnv = process.env
): Promise<string> {
  const java = javaExecutable(env)
  return new Promise((resolve, reject) => {
    execFile(
      java,
      javaToolArgs(classPath, heapMb, tool),
      { env, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err === null) return resolve(stdout)
        const said = FAILED.exec(stderr)?.[1]
        const failure = err as NodeJS.ErrnoException & { killed?: boolean }
        const why =
          said ??
          (failure.code === 'ENOENT'
            ? `${java} is not installed: the Java host needs a JDK (bash scripts/ensure-java-host.sh installs one)`
            : failure.killed === true
              ? `the Java host's ${tool[0]} did not finish within ${timeoutMs} ms`
              : `the Java host's ${tool[0]} failed: ${lastLines(stderr) || err.message}`)
        reject(new InternalError('IGW_MICROSERVICE_LOAD', why, { cause: err }))
      }
    )
  })
}

/** The last few lines a process printed, on one line. */
function lastLines(text: string, n = 3): string {
  return text.trim().split('\n').slice(-n).join(' | ')
}

/**
 * `--check DIR`: the host loads the jar, builds the Spring context and the catalog, and prints one JSON
 * line; a package it cannot load is refused with its reason (class not found, a bean that threw).
 */
export async function checkJavaPackage(
  classPath: string,
  dir: string,
  heapMb: number,
  timeoutMs: number
): Promise<unknown> {
  const out = await runJavaTool(classPath, heapMb, ['--check', dir], timeoutMs)
  try {
    return JSON.parse(out) as unknown
  } catch (err) {
    throw new InternalError('IGW_MICROSERVICE_LOAD', `the Java host's --check printed no JSON: ${lastLines(out)}`, {
      cause: err
    })
  }
}

/**
 * The memory limit of this process's cgroup, bytes (cgroup v2 memory.max, else v1's
 * memory.limit_in_bytes); null without one. A pod's limit is there, where a JVM's heap must fit with
 * the JVM's own memory beside it.
 */
export function cgroupMemoryLimit(root = '/sys/fs/cgroup'): number | null {
  for (const file of [join(root, 'memory.max'), join(root, 'memory', 'memory.limit_in_bytes')]) {
    let text: string
    try {
      text = readFileSync(file, 'utf8').trim()
    } catch {
      continue
    }
    const bytes = Number(text)
    // v1 says "no limit" with a huge number (a page-rounded 2^63 - 1).
    return text === 'max' || !Number.isFinite(bytes) || bytes >= 2 ** 62 ? null : bytes
  }
  return null
}

/**
 * The heap a JVM gets under a memory limit: the package's, or three quarters of the limit when the
 * package's would leave the JVM's metaspace, threads and buffers too little room (docs/java.md, In the image).
 */
export function heapWithin(heapMb: number, limitBytes: number | null): number {
  if (limitBytes === null) return heapMb
  return Math.min(heapMb, Math.floor((limitBytes * 0.75) / 2 ** 20))
}
