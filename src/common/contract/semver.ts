/**
 * The one order of microservice versions, oldest first: the dispatcher's newest version
 * (DISPATCH.servingVersions "newest") and the upload check (same or older takes --force) both use it.
 *
 * For valid SemVer 2.0.0 it is §11 precedence: major, minor and patch compared as numbers (1.10.0
 * after 1.9.2); a pre-release (`1.0.0-rc.1`) before its release; pre-release identifiers compared dot
 * by dot, numeric ones as numbers of any length (rc.2 before rc.10), numeric before alphanumeric,
 * alphanumeric ones in ASCII order, and a longer list after its prefix (alpha before alpha.1); build
 * metadata (`+…`) ignored, so `1.0.0+b2` and `1.0.0` are the same version.
 *
 * Authors also write versions that are not SemVer ("1.2", "2024-05", "v3"). They get a total,
 * deterministic order by the same steps, which coincide with §11 on valid SemVer: build metadata
 * (from the first `+`) is dropped; the first `-` starts the pre-release; the part before it is split
 * at dots and compared part by part, a missing part counting as 0 ("1.2" = "1.2.0"), two all-digit
 * parts as numbers, an all-digit part before any other, two others as text in code-unit order. So
 * "2024-05" is a pre-release of "2024" and follows "2023-12"; "v3" sorts after every numbered
 * version. Different strings may compare equal ("1.0" and "1.0.0", or builds of one version):
 * callers that must tell them apart compare the strings themselves.
 */
export function compareVersions(a: string, b: string): number {
  const x = parse(a)
  const y = parse(b)
  const n = Math.max(x.core.length, y.core.length)
  for (let k = 0; k < n; k++) {
    const c = compareIdentifiers(x.core[k] ?? '0', y.core[k] ?? '0')
    if (c !== 0) return c
  }
  if (x.pre === null || y.pre === null) return x.pre === y.pre ? 0 : x.pre === null ? 1 : -1
  for (let k = 0; k < Math.min(x.pre.length, y.pre.length); k++) {
    const c = compareIdentifiers(x.pre[k]!, y.pre[k]!)
    if (c !== 0) return c
  }
  return Math.sign(x.pre.length - y.pre.length)
}

interface Parsed {
  core: string[]
  /** The pre-release identifiers; null for a release. */
  pre: string[] | null
}

function parse(version: string): Parsed {
  const plus = version.indexOf('+')
  const v = plus < 0 ? version : version.slice(0, plus)
  const dash = v.indexOf('-')
  if (dash < 0) return { core: v.split('.'), pre: null }
  return { core: v.slice(0, dash).split('.'), pre: v.slice(dash + 1).split('.') }
}

const DIGITS = /^\d+$/

/**
 * Two identifiers: all-digit ones as numbers of any size (leading zeros dropped, then the longer is
 * the larger, then digit by digit), an all-digit one before any other, others in code-unit order.
 */
function compareIdentifiers(x: string, y: string): number {
  const nx = DIGITS.test(x)
  const ny = DIGITS.test(y)
  if (nx && ny) {
    const dx = x.replace(/^0+/, '')
    const dy = y.replace(/^0+/, '')
    if (dx.length !== dy.length) return dx.length < dy.length ? -1 : 1
    return dx < dy ? -1 : dx > dy ? 1 : 0
  }
  if (nx !== ny) return nx ? -1 : 1
  return x < y ? -1 : x > y ? 1 : 0
}
