/**
 * Microservice versions as their authors write them (semver, usually): numeric parts compared as
 * numbers, a pre-release (`1.2.0-rc.1`) before its release and ordered identifier by identifier,
 * build metadata ignored, anything else as text.
 */
export function compareVersions(a: string, b: string): number {
  // Build metadata (+…) does not order versions.
  const [coreA = '', preA] = splitPre(a.split('+')[0]!)
  const [coreB = '', preB] = splitPre(b.split('+')[0]!)
  const pa = coreA.split('.')
  const pb = coreB.split('.')
  for (let k = 0; k < Math.max(pa.length, pb.length); k++) {
    const c = comparePart(pa[k] ?? '0', pb[k] ?? '0')
    if (c !== 0) return c
  }
  if (preA === preB) return 0
  if (preA === undefined) return 1
  if (preB === undefined) return -1
  // Dot-separated identifiers one by one (rc.2 before rc.10); a longer list after its prefix.
  const [ia, ib] = [preA.split('.'), preB.split('.')]
  for (let k = 0; k < Math.min(ia.length, ib.length); k++) {
    const c = comparePart(ia[k]!, ib[k]!)
    if (c !== 0) return c
  }
  return Math.sign(ia.length - ib.length)
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
