import { readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { DEFAULT_RUNTIME_SETTINGS, type RuntimeSettings } from './settings'
import { javaZone, unknownZone } from '../serializers/java/zones'
import { InternalError, errorMessage } from '../../common/errors/internal'

export const CONFIG_FILE = 'microservice.json'

/**
 * docs/contract.md, Calls: the gateway is exposed for native microservices only; a servlet microservice handles all
 * its incoming HTTP requests itself, so the platform deploys and runs it but the gateway refuses calls.
 */
export const APPLICATION_TYPES = ['nativeApp', 'servletApp'] as const
export type ApplicationType = (typeof APPLICATION_TYPES)[number]

/**
 * What runs a package: "node", the Node host loading `entry`; "java", the Java host loading `jar` (with
 * the jars in lib/) and building its Spring `applicationContext` (java-host.ts starts it).
 */
export const RUNTIMES = ['node', 'java'] as const
export type Runtime = (typeof RUNTIMES)[number]

/** The config file inside a microservice directory: what both runtimes share, and the code each loads. */
export type MicroserviceConfig = NodeMicroserviceConfig | JavaMicroserviceConfig

export interface NodeMicroserviceConfig extends CommonConfig {
  runtime: 'node'
  /** Entry module, relative to the directory; it exports the definition as `default` or `microservice`. */
  entry: string
}

export interface JavaMicroserviceConfig extends CommonConfig {
  runtime: 'java'
  /** The archive of the package's classes: a file name in the directory itself (its other jars are in lib/). */
  jar: string
  /**
   * The Spring context that makes the services: an XML resource inside the jar (META-INF/app.xml), or
   * the name of a @Component class with @Bean methods.
   */
  applicationContext: string
}

interface CommonConfig {
  name: string
  version: string
  /** "nativeApp" (the default) or "servletApp" (APPLICATION_TYPES). */
  type: ApplicationType
  settings: RuntimeSettings
  permissions: { privilegedNames: string[] }
  /** Processes the platform runs; calls go to the one with the fewest in flight. */
  instances: number
  memory: MemorySettings
  availability: { responseTimeMs: number }
  /** When set, replaces the list in the microservice's code (the operator's say over what is exposed). */
  platformRegularExpressionToRemotelyEnabled: string[] | null
  /** Alpha aliases (Java class name → alias), added to those in the code. */
  aliases: Record<string, string>
}

/** docs/contract.md, Limits: restart on error 4 times, 15 percent growth, heap dump on. */
export interface MemorySettings {
  /** The heap limit, MB (V8's old space; the JVM's -Xmx); grows by growthPercent at each memory-error restart. */
  maxOldSpaceMb: number
  restartOnError: boolean
  restarts: number
  growthPercent: number
  heapDump: boolean
}

export const DEFAULT_MEMORY: Readonly<MemorySettings> = Object.freeze({
  maxOldSpaceMb: 1024,
  restartOnError: true,
  restarts: 4,
  growthPercent: 15,
  heapDump: true
})

function section(file: string, key: string, v: unknown): Record<string, unknown> {
  if (v === undefined) return {}
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(file, key, 'must be an object')
  return v as Record<string, unknown>
}

function num(
  file: string,
  key: string,
  v: unknown,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER
): number {
  if (v === undefined) return fallback
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    fail(file, key, `must be an integer from ${min} to ${max}`)
  return v
}

function bool(file: string, key: string, v: unknown, fallback: boolean): boolean {
  if (v === undefined) return fallback
  if (typeof v !== 'boolean') fail(file, key, 'must be true or false')
  return v
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/

function fail(file: string, key: string, problem: string): never {
  throw new InternalError('IGW_MICROSERVICE_CONFIG', `${file}: ${key}: ${problem}`)
}

/** A jar's file name: in the package directory itself, so no separator and no leading dot. */
const JAR = /^[A-Za-z0-9_][A-Za-z0-9_.+-]*\.jar$/
/** A resource inside a jar, as a class loader names it: segments joined by '/', none of them '.' or '..'. */
const RESOURCE = /^(?:[\w$+-][\w$.+-]*\/)*[\w$+-][\w$.+-]*\.xml$/
/** A Java class name: dotted identifiers, a nested class after '$'. */
const CLASS_NAME = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/

/** The runtime and the code it loads; a key of the other runtime is refused with what that runtime uses. */
function packageCode(
  file: string,
  o: Record<string, unknown>
):
  | Pick<NodeMicroserviceConfig, 'runtime' | 'entry'>
  | Pick<JavaMicroserviceConfig, 'runtime' | 'jar' | 'applicationContext'> {
  const runtime = o.runtime ?? 'node'
  if (typeof runtime !== 'string' || !(RUNTIMES as readonly string[]).includes(runtime))
    fail(file, 'runtime', `must be one of ${RUNTIMES.map((r) => `"${r}"`).join(', ')}`)
  if (runtime === 'node') {
    for (const key of ['jar', 'applicationContext'])
      if (o[key] !== undefined)
        fail(file, key, 'only a "runtime": "java" package has one; a node package names its entry')
    if (typeof o.entry !== 'string' || o.entry === '' || o.entry.includes('..'))
      fail(file, 'entry', 'must be a relative path inside the directory')
    return { runtime: 'node', entry: o.entry }
  }
  if (o.entry !== undefined)
    fail(
      file,
      'entry',
      'a "runtime": "java" package has no entry module: the Java host loads its jar and builds its applicationContext'
    )
  if (typeof o.jar !== 'string' || !JAR.test(o.jar))
    fail(
      file,
      'jar',
      "must be the file name of the package's jar, in the directory itself (calculator.jar; other jars go in lib/)"
    )
  const context = o.applicationContext
  if (typeof context !== 'string' || !(context.endsWith('.xml') ? RESOURCE.test(context) : CLASS_NAME.test(context)))
    fail(
      file,
      'applicationContext',
      'must be a Spring XML resource inside the jar (META-INF/calculator.xml) or the name of a @Component class with @Bean methods (com.acme.CalculatorConfig)'
    )
  const settings = o.settings
  if (typeof settings === 'object' && settings !== null)
    for (const key of NODE_ONLY_SETTINGS)
      if (key in settings)
        fail(
          file,
          `settings.${key}`,
          "a setting of the Node host's serializers and method pool; the Java host's serializers are the package's Java libraries, configured by its beans"
        )
  return { runtime: 'java', jar: o.jar, applicationContext: context }
}

/** Settings the Java host has no use for: a java package that sets one is told, not ignored. */
const NODE_ONLY_SETTINGS = ['workerMinArgumentBytes', 'maxDepth', 'maxNodes', 'maxStringLength'] as const

/** The file of a package's code that microservice.json names: the entry module, or the jar. */
export function codeFile(config: MicroserviceConfig): string {
  return config.runtime === 'java' ? config.jar : config.entry
}

/** `codeFile` as a sentence says it: what it is and that the config names it. */
export function codeFileNamed(config: MicroserviceConfig): string {
  return config.runtime === 'java'
    ? `${config.jar}, the jar named in microservice.json`
    : `${config.entry}, the entry module named in microservice.json`
}

/** Reads and validates a microservice's config; every error names the key and the problem. */
export function readMicroserviceConfig(dir: string): MicroserviceConfig {
  const file = join(dir, CONFIG_FILE)
  if (!existsSync(file))
    throw new InternalError(
      'IGW_MICROSERVICE_CONFIG',
      `${file} is missing: a microservice directory holds its config file beside its code`
    )
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new InternalError('IGW_MICROSERVICE_CONFIG', `${file}: cannot be read as JSON: ${errorMessage(err)}`, {
      cause: err
    })
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(file, '(root)', 'must be a JSON object')
  const o = raw as Record<string, unknown>
  if (typeof o.name !== 'string' || !NAME.test(o.name)) fail(file, 'name', 'must be a name of letters, digits, _ . -')
  if (typeof o.version !== 'string' || o.version === '') fail(file, 'version', 'must be a non-empty string')
  const code = packageCode(file, o)
  const settings: RuntimeSettings = { ...DEFAULT_RUNTIME_SETTINGS }
  const s = o.settings ?? {}
  if (typeof s !== 'object' || s === null || Array.isArray(s)) fail(file, 'settings', 'must be an object')
  for (const [key, value] of Object.entries(s)) {
    if (!(key in settings))
      fail(file, `settings.${key}`, `unknown setting (known: ${Object.keys(settings).join(', ')})`)
    if (key === 'timeZone') {
      if (typeof value !== 'string')
        fail(file, 'settings.timeZone', 'must be a Java time-zone ID, such as Europe/Berlin')
      if (javaZone(value) === undefined) fail(file, 'settings.timeZone', unknownZone(value))
      settings.timeZone = value
      continue
    }
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
      fail(file, `settings.${key}`, 'must be a non-negative integer')
    ;(settings as unknown as Record<string, number>)[key] = value
  }
  if (settings.threadPoolSize < 1) fail(file, 'settings.threadPoolSize', 'must be at least 1')
  const p = (o.permissions ?? {}) as Record<string, unknown>
  const names = p.privilegedNames ?? []
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string'))
    fail(file, 'permissions.privilegedNames', 'must be a list of strings')
  const m = section(file, 'memory', o.memory)
  for (const key of Object.keys(m))
    if (!(key in DEFAULT_MEMORY))
      fail(file, `memory.${key}`, `unknown setting (known: ${Object.keys(DEFAULT_MEMORY).join(', ')})`)
  const memory: MemorySettings = {
    maxOldSpaceMb: num(file, 'memory.maxOldSpaceMb', m.maxOldSpaceMb, DEFAULT_MEMORY.maxOldSpaceMb, 16, 65536),
    restartOnError: bool(file, 'memory.restartOnError', m.restartOnError, DEFAULT_MEMORY.restartOnError),
    restarts: num(file, 'memory.restarts', m.restarts, DEFAULT_MEMORY.restarts, 0, 100),
    growthPercent: num(file, 'memory.growthPercent', m.growthPercent, DEFAULT_MEMORY.growthPercent, 0, 1000),
    heapDump: bool(file, 'memory.heapDump', m.heapDump, DEFAULT_MEMORY.heapDump)
  }
  const a = section(file, 'availability', o.availability)
  const type = o.type ?? 'nativeApp'
  if (typeof type !== 'string' || !(APPLICATION_TYPES as readonly string[]).includes(type))
    fail(
      file,
      'type',
      `must be one of ${APPLICATION_TYPES.map((t) => `"${t}"`).join(', ')} (only nativeApp is exposed)`
    )
  const known = new Set([
    'name',
    'version',
    'type',
    'runtime',
    'entry',
    'jar',
    'applicationContext',
    'settings',
    'permissions',
    'instances',
    'memory',
    'availability',
    'platformRegularExpressionToRemotelyEnabled',
    'aliases'
  ])
  const enabled = o.platformRegularExpressionToRemotelyEnabled
  if (enabled !== undefined && (!Array.isArray(enabled) || enabled.some((e) => typeof e !== 'string')))
    fail(file, 'platformRegularExpressionToRemotelyEnabled', 'must be a list of regular expressions')
  const aliases = section(file, 'aliases', o.aliases)
  for (const [k, v] of Object.entries(aliases))
    if (typeof v !== 'string' || v === '') fail(file, `aliases.${k}`, 'must be a non-empty alias')
  for (const key of Object.keys(o))
    if (!known.has(key)) fail(file, key, `unknown key (known: ${[...known].join(', ')})`)
  return {
    ...code,
    name: o.name,
    version: o.version,
    type: type as ApplicationType,
    settings,
    permissions: { privilegedNames: names as string[] },
    instances: num(file, 'instances', o.instances, 1, 1, 64),
    memory,
    availability: { responseTimeMs: num(file, 'availability.responseTimeMs', a.responseTimeMs, 20000, 1) },
    platformRegularExpressionToRemotelyEnabled: enabled === undefined ? null : (enabled as string[]),
    aliases: aliases as Record<string, string>
  }
}
