/**
 * Microservice versions as their authors write them (semver, usually): numeric parts compared as
 * numbers, a pre-release (`1.2.0-rc.1`) before its release, anything else as text.
 */
export function compareVersions(a: string, b: string): number {
  const [coreA = '', preA] = splitPre(a)
  const [coreB = '', preB] = splitPre(b)
  const pa = coreA.split('.')
  const pb = coreB.split('.')
  for (let k = 0; k < Math.max(pa.length, pb.length); k++) {
    const c = comparePart(pa[k] ?? '0', pb[k] ?? '0')
    if (c !== 0) return c
  }
  if (preA === preB) return 0
  if (preA === undefined) return 1
  if (preB === undefined) return -1
  return comparePart(preA, preB)
}

function splitPre(v: string): [string, string | undefined] {
  const at = v.indexOf('-')
  return at < 0 ? [v, undefined] : [v.slice(0, at), v.slice(at + 1)]
}

function comparePart(x: string, y: string): number {
  if (/^\d+$/.test(x) && /^\d+$/.test(y)) return Math.sign(Number(x) - Number(y))
  return x < y ? -1 : x > y ? 1 : 0
}

/**
 * Why an upload of `incoming` over the running `running` is refused, or null when it goes ahead: the
 * same version again or an older one replaces what runs without saying so, so it takes --force.
 */
export function versionRefusal(name: string, incoming: string, running: string | null, where = ''): string | null {
  if (running === null) return null
  const c = compareVersions(incoming, running)
  if (c > 0) return null
  return c === 0
    ? `${name} ${running} is deployed already${where}; to replace it with this package, upload again with --force`
    : `${name} ${running} is deployed${where}, newer than ${incoming}; to go back, use microservice rollback ${name} or upload again with --force`
}
