// A stand-in for the JVM, for tests of the platform's side of the Java host without a JDK: a JAVA_HOME
// whose bin/java is a Node script that answers as platform.host.Host does (the listening line, stop on
// stdin, `--check`, `--describe`, a start failure, a heap that runs out), as each package's
// fake-java.json tells it, and records each run's arguments and environment in the package's fake-java.log.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'

/** What the stand-in does for one package (its fake-java.json). */
export interface FakeJavaScript {
  /** A start failure: `microservice failed to start: REASON` on stderr, exit 78. */
  start?: string
  /** `--check` refuses with this reason ({dir}: the directory it was given), exit 78; else it prints one JSON line. */
  check?: string
  /** `--check` never ends. */
  checkHangs?: boolean
  /** Lines printed before the listening line (a package's own output, a spoofed listening line). */
  before?: string[]
  /** Below this -Xmx, the heap runs out this long after listening, as the JVM says it: exit 3. */
  oom?: { belowMb: number; afterMs: number }
  /** Ignores `stop` on stdin (an instance that hangs while stopping). */
  deaf?: boolean
}

/** One run of the stand-in, as its log records it. */
export interface FakeJavaRun {
  pid: number
  args: string[]
  env: Record<string, string | null>
  /** How it ended: 'stop' (the word on stdin), 'eof' (stdin ended), 'signal SIGTERM'. */
  end?: string
}

const SCRIPT = `
const fs = require('fs'), path = require('path')
const args = process.argv.slice(2)
const rest = args.slice(args.indexOf('platform.host.Host') + 1)
const tool = rest[0] === '--check' || rest[0] === '--describe' ? rest[0] : null
const dir = tool === null ? rest[0] : rest[1]
const log = path.join(dir, 'fake-java.log')
const pick = (k) => (process.env[k] === undefined ? null : process.env[k])
const env = {}
for (const k of ['MICROSERVICE_LISTEN', 'MICROSERVICE_SECRET', 'MICROSERVICE_MANAGED', 'MICROSERVICE_DRAIN_MS']) env[k] = pick(k)
const ended = (how) => fs.appendFileSync(log, JSON.stringify({ pid: process.pid, end: how }) + '\\n')
const managed = process.env.MICROSERVICE_MANAGED === '1'
// Before the run is logged: a test that sees the run may signal it at once (a handler installed later
// lost that race once, and the stand-in died of the signal).
if (tool === null)
  for (const signal of ['SIGTERM', 'SIGINT'])
    process.on(signal, () => {
      if (managed) return console.log(signal + ': left to the platform')
      ended('signal ' + signal)
      process.exit(0)
    })
fs.appendFileSync(log, JSON.stringify({ pid: process.pid, args, env }) + '\\n')
const file = path.join(dir, 'fake-java.json')
const script = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {}
const config = JSON.parse(fs.readFileSync(path.join(dir, 'microservice.json'), 'utf8'))
const fail = (why) => {
  console.error('microservice failed to start: ' + why)
  process.exit(78)
}
if (tool === '--check') {
  if (script.checkHangs) setInterval(() => {}, 1000)
  else if (script.check !== undefined) fail(script.check.split('{dir}').join(dir))
  else {
    console.log(JSON.stringify({ name: config.name, version: config.version, services: [] }))
    process.exit(0)
  }
}
if (tool === '--describe') {
  const info = { title: config.name, version: config.version, 'x-platform-defaults': { sequence: rest[2], apiId: rest[3] } }
  console.log(JSON.stringify({ openapi: '3.0.3', info, paths: { '/calculator/multiply': {} } }))
  process.exit(0)
}
if (tool === null && script.start !== undefined) fail(script.start)
if (tool === null) run()
function run() {
const xmx = Number(/-Xmx(\\d+)m/.exec(args.join(' '))[1])
const listen = process.env.MICROSERVICE_LISTEN
const endpoint = listen.startsWith('unix:') ? listen : listen.replace(/^tcp:/, '').replace(/:0$/, ':7999')
for (const line of script.before ?? []) console.log(line)
console.log('microservice ' + config.name + ' ' + config.version + ' listening on ' + endpoint + ' (pid ' + process.pid + ', heap limit ' + xmx + ' MB)')
if (script.oom !== undefined && xmx < script.oom.belowMb)
  setTimeout(() => {
    console.log('Terminating due to java.lang.OutOfMemoryError: Java heap space')
    process.exit(3)
  }, script.oom.afterMs)
// Deaf, it stays up whatever its stdin does: only SIGKILL ends it.
if (script.deaf) setInterval(() => {}, 1000)
if (managed) {
  let text = ''
  process.stdin.setEncoding('utf8')
  process.stdin.on('data', (d) => {
    text += d
    if (!script.deaf && text.split('\\n').includes('stop')) {
      ended('stop')
      process.exit(0)
    }
  })
  process.stdin.on('end', () => {
    if (script.deaf) return
    ended('eof')
    process.exit(0)
  })
} else {
  // microservice host's lifeline: the end of stdin is the end of the command that started it.
  if (process.env.MICROSERVICE_LIFELINE === 'stdin') process.stdin.on('end', () => process.exit(0)).resume()
  setInterval(() => {}, 1000)
}
}
`

/** A JAVA_HOME holding the stand-in (bin/java, run by this Node). */
export function fakeJavaHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'fake-java-'))
  mkdirSync(join(home, 'bin'))
  writeFileSync(join(home, 'bin', 'java'), `#!${process.execPath}\n${SCRIPT}`)
  chmodSync(join(home, 'bin', 'java'), 0o755)
  return home
}

/** A class path file naming nothing real: the stand-in does not read it. */
export function fakeClassPathFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'fake-classpath-')), 'classpath')
  writeFileSync(file, '/nowhere/host.jar:/nowhere/spring3-context.jar\n')
  return file
}

/**
 * A java package directory named `name` (with an empty jar, which the stand-in does not open) that
 * the stand-in treats as `script` says.
 */
export function fakeJavaPackage(
  name: string,
  script: FakeJavaScript = {},
  config: Record<string, unknown> = {}
): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'fake-java-package-')), name)
  mkdirSync(dir)
  writeFileSync(
    join(dir, 'microservice.json'),
    JSON.stringify({
      name,
      version: '1.0.0',
      runtime: 'java',
      jar: `${name}.jar`,
      applicationContext: `META-INF/${name}.xml`,
      ...config
    })
  )
  writeFileSync(join(dir, `${name}.jar`), '')
  writeFileSync(join(dir, 'fake-java.json'), JSON.stringify(script))
  return dir
}

/** The stand-in's runs in `dir`, each with how it ended when it did. */
export function fakeJavaRuns(dir: string): FakeJavaRun[] {
  const file = join(dir, 'fake-java.log')
  if (!existsSync(file)) return []
  const runs: FakeJavaRun[] = []
  for (const line of readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')) {
    const entry = JSON.parse(line) as FakeJavaRun | { pid: number; end: string }
    if ('args' in entry) runs.push(entry)
    else {
      const run = runs.find((r) => r.pid === entry.pid)
      if (run !== undefined) run.end = entry.end
    }
  }
  return runs
}
