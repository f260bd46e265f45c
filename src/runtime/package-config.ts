import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DEFAULT_RUNTIME_SETTINGS, type RuntimeSettings } from './settings'

export const CONFIG_FILE = 'microservice.json'

/** The config file inside a microservice directory. */
export interface MicroserviceConfig {
  name: string
  version: string
  /** Entry module, relative to the directory; it exports the definition as `default` or `microservice`. */
  entry: string
  settings: RuntimeSettings
  permissions: { privilegedNames: string[] }
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/

function fail (file: string, key: string, problem: string): never {
  throw new Error(`${file}: ${key}: ${problem}`)
}

/** Reads and validates a microservice's config; every error names the key and the problem. */
export function readMicroserviceConfig (dir: string): MicroserviceConfig {
  const file = join(dir, CONFIG_FILE)
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new Error(`${file}: cannot be read as JSON: ${(err as Error).message}`)
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(file, '(root)', 'must be a JSON object')
  const o = raw as Record<string, unknown>
  if (typeof o.name !== 'string' || !NAME.test(o.name)) fail(file, 'name', 'must be a name of letters, digits, _ . -')
  if (typeof o.version !== 'string' || o.version === '') fail(file, 'version', 'must be a non-empty string')
  if (typeof o.entry !== 'string' || o.entry === '' || o.entry.includes('..')) fail(file, 'entry', 'must be a relative path inside the directory')
  const settings: RuntimeSettings = { ...DEFAULT_RUNTIME_SETTINGS }
  const s = o.settings ?? {}
  if (typeof s !== 'object' || s === null || Array.isArray(s)) fail(file, 'settings', 'must be an object')
  for (const [key, value] of Object.entries(s)) {
    if (!(key in settings)) fail(file, `settings.${key}`, `unknown setting (known: ${Object.keys(settings).join(', ')})`)
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) fail(file, `settings.${key}`, 'must be a non-negative integer')
    settings[key as keyof RuntimeSettings] = value
  }
  if (settings.threadPoolSize < 1) fail(file, 'settings.threadPoolSize', 'must be at least 1')
  const p = (o.permissions ?? {}) as Record<string, unknown>
  const names = p.privilegedNames ?? []
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) fail(file, 'permissions.privilegedNames', 'must be a list of strings')
  return { name: o.name, version: o.version, entry: o.entry, settings, permissions: { privilegedNames: names as string[] } }
}
