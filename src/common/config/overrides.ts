// How a config is layered: a file over the shipped defaults (mergeOver), then PLATFORM__… environment
// variables over both (applyEnv). The schema and the types come after, in config.ts.
import type { Json } from '../json/value'

/**
 * Environment overrides: PLATFORM__SECTION__SUB__key=value sets that key (JSON values are parsed,
 * anything else is a string). E.g. PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__port=8092.
 *
 * A block that is null in the defaults (a listener's `tls`, `RATE_LIMITS.redis`) is
 * set whole as JSON (`…__tls={"certFile":…}`) or key by key (`…__tls__certFile=…`): a key under it
 * opens the block, and the schema then checks its keys as it checks a file's. Returns every bad override
 * (an unknown key, a value where a block is), none applied.
 */
export function applyEnv(raw: { [k: string]: Json }, env: NodeJS.ProcessEnv): string[] {
  // Every bad override at once: a deployment that sets several is fixed in one round, not one per start.
  const problems: string[] = []
  // Blocks opened by an override: their keys are the schema's to check, not the defaults'.
  const opened = new WeakSet<object>()
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('PLATFORM__') || value === undefined) continue
    const path = name.slice('PLATFORM__'.length).split('__')
    let node: { [k: string]: Json } = raw
    let at = 0
    for (; at < path.length - 1; at++) {
      const step = path[at]!
      let next = node[step]
      if (next === null || (next === undefined && opened.has(node))) {
        next = node[step] = {}
        opened.add(next)
      }
      if (!isSection(next)) break
      node = next
    }
    const key = path[at]!
    if (at < path.length - 1 || !(key in node || opened.has(node))) {
      const where = path.slice(0, at).join('.')
      const place = where === '' ? key : `${where}.${key}`
      // A key the walk stopped at that exists is a value (a key that exists at the end was applied).
      problems.push(
        key in node
          ? `${name}: ${place} is a value, not a block: PLATFORM__${path.slice(0, at + 1).join('__')}=… sets it`
          : `${name}: unknown key ${path.join('.')} (${knownKeys(node, key, where)})`
      )
      continue
    }
    let parsed: Json
    try {
      parsed = JSON.parse(value) as Json
    } catch {
      parsed = value
    }
    node[key] = parsed
  }
  return problems
}

/** The keys of one section, for a complaint about a key that is not one of them; the closest first. */
export function knownKeys(section: { [k: string]: Json }, typed: string, where: string): string {
  const keys = Object.keys(section).filter((k) => k !== '$schema')
  const near = keys.filter((k) => k.toLowerCase() === typed.toLowerCase() || editDistance(k, typed) <= 2)
  const known = `known ${where === '' ? 'at the top' : `in ${where}`}: ${keys.join(', ')}`
  return near.length > 0 ? `did you mean ${near.join(' or ')}? ${known}` : known
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length]!
}

/** One problem as it is; several as a count and a list, so none hides behind the first. */
export function listed(problems: readonly string[]): string {
  return problems.length === 1 ? problems[0]! : `${problems.length} problems:\n  ${problems.join('\n  ')}`
}

export function isSection(v: Json | undefined): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** `over` laid on `base`, section by section: a file sets only what it changes. */
export function mergeOver(base: { [k: string]: Json }, over: { [k: string]: Json }): { [k: string]: Json } {
  const out: { [k: string]: Json } = { ...base }
  for (const [k, v] of Object.entries(over)) {
    const b = out[k]
    out[k] = isSection(v) && isSection(b) ? mergeOver(b, v) : v
  }
  return out
}
