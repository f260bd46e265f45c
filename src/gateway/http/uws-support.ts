import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

/**
 * uWebSockets.js ships one native binary per Node ABI, and a build loads on another Node only to fail
 * later (`us_socket_local_port is not a function` at listen with 20.30), so the gateway checks the
 * installed build's binaries first and says what to do. The host install (the lock file's 20.30)
 * has Node 20's; the image (Containerfile) puts in a build for its Node 24.
 */
const NODE_MAJOR_OF_ABI: Readonly<Record<string, number>> = {
  '93': 16,
  '108': 18,
  '115': 20,
  '127': 22,
  '137': 24,
  '141': 25,
  '147': 26
}

/** The installed uWS build's binaries (file paths) for this platform. */
function uwsBinaries(platform: string, arch: string): string[] {
  let main: string
  try {
    main = require.resolve('uWebSockets.js')
  } catch {
    return []
  }
  // The official layout keeps the binaries beside uws.js; the 20.30 package in binaries/ beside src/.
  const dirs = [dirname(main), join(dirname(main), '..', 'binaries')].filter((d) => existsSync(d))
  const prefix = `uws_${platform}_${arch}_`
  return dirs.flatMap((d) =>
    readdirSync(d)
      .filter((f) => f.startsWith(prefix) && f.endsWith('.node'))
      .map((f) => join(d, f))
  )
}

/** The Node ABIs (process.versions.modules) the installed uWS build has a binary for on this platform. */
export function installedUwsAbis(platform: string = process.platform, arch: string = process.arch): string[] {
  const prefix = `uws_${platform}_${arch}_`
  return uwsBinaries(platform, arch).map((f) => basename(f).slice(prefix.length, -5))
}

/** The binary is looked at once per process: the gateway's and the edge's listeners (and threads) ask. */
let readsPeerCertificates: boolean | null = null

/**
 * Whether this Node's uWS binary gives JavaScript the peer's certificate (`res.getX509Certificate()`,
 * in the 20.5x builds; not in the host's 20.30, docs/security.md "Client certificates"). Looked up in
 * the binary, since a response object exists only during a request.
 */
export function uwsReadsPeerCertificates(): boolean {
  if (readsPeerCertificates === null) {
    const abi = `_${process.versions.modules}.node`
    const file = uwsBinaries(process.platform, process.arch).find((f) => f.endsWith(abi))
    readsPeerCertificates = file !== undefined && readFileSync(file).includes('getX509Certificate')
  }
  return readsPeerCertificates
}

export function uwsSupportError(
  nodeVersion: string = process.versions.node,
  abi: string = process.versions.modules,
  available: readonly string[] = installedUwsAbis()
): string | null {
  if (available.includes(abi)) return null
  const majors = available.map((a) =>
    NODE_MAJOR_OF_ABI[a] !== undefined ? `Node ${NODE_MAJOR_OF_ABI[a]}` : `ABI ${a}`
  )
  const has = majors.length === 0 ? 'no binary for this platform' : `binaries for ${majors.join(', ')} only`
  return (
    `the installed uWebSockets.js build has ${has}; this is Node ${nodeVersion} (ABI ${abi}). ` +
    `On this host run Node 20 (npm ci installs its build), or run the container image, which has Node 24 and its build (npm run image)`
  )
}

/** The installed uWS package's name and version (its package.json, found above its main file). */
export function uwsBuild(): { name: string; version: string } {
  let dir = dirname(require.resolve('uWebSockets.js'))
  for (let k = 0; k < 3; k++, dir = dirname(dir)) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string }
      if (pkg.version !== undefined) return { name: pkg.name ?? 'uWebSockets.js', version: pkg.version }
    }
  }
  return { name: 'uWebSockets.js', version: 'unknown' }
}
