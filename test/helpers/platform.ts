import { basename, join } from 'node:path'
import { parseConfig, DEFAULT_CONFIG_FILE, type PlatformConfig } from '../../src/common/config/config'
import { Platform, type PlatformOptions } from '../../src/platform/platform'
import { createLogger } from '../../src/common/observability/log'
import type { Problem } from '../../src/common/errors/problem'
import { cpSync, readFileSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import type { Json } from '../../src/common/json/value'
export type { Json }

export const EXAMPLE_DIR = join(__dirname, '..', '..', 'examples', 'example')
export const TESTKIT_DIR = join(__dirname, '..', 'fixtures', 'testkit')
export const TYPEKIT_DIR = join(__dirname, '..', 'fixtures', 'typekit')
/** The load and kill tests' microservice: multiply, a call held on purpose, a record of what ran (helpers/load.ts). */
export const LOADKIT_DIR = join(__dirname, '..', 'fixtures', 'loadkit')

function merge(base: { [k: string]: Json }, over: { [k: string]: Json }): void {
  for (const [k, v] of Object.entries(over)) {
    const b = base[k]
    if (
      typeof v === 'object' &&
      v !== null &&
      !Array.isArray(v) &&
      typeof b === 'object' &&
      b !== null &&
      !Array.isArray(b)
    )
      merge(b, v)
    else base[k] = v
  }
}

/** The default config file with some keys replaced, e.g. { WORKER_POOL: { inlineMaxBytes: 0 } }. */
export function testConfig(overrides: { [k: string]: Json } = {}): PlatformConfig {
  const raw = JSON.parse(readFileSync(DEFAULT_CONFIG_FILE, 'utf8')) as { [k: string]: Json }
  // Every platform of a test deploys into a directory of its own.
  const dir = mkdtempSync(join(tmpdir(), 'platform-'))
  merge(raw, {
    DISPATCH: { pingIntervalMs: 200 },
    WORKER_POOL: { maxThreads: 4, minThreads: 1 },
    PLATFORM: {
      uploadDirectory: join(dir, 'upload'),
      deploymentDirectory: join(dir, 'deployments'),
      controlSocket: join(dir, 'control.sock'),
      bootstrap: [],
      // Tests stop their platforms at once; the drain's timing is tested where it matters.
      drainGraceMs: 0,
      drainIdleMs: 0
    }
  })
  merge(raw, overrides)
  return parseConfig(raw)
}

export interface RunningPlatform {
  platform: Platform
  url: string
  stop(): Promise<void>
}

/** How tests run a platform: loopback, ephemeral ports for gateway, edge and admin, quiet children. */
export const TEST_PLATFORM_OPTIONS: Readonly<PlatformOptions> = Object.freeze<PlatformOptions>({
  host: '127.0.0.1',
  port: 0,
  edgePort: 0,
  adminPort: 0,
  manager: { stdio: 'quiet' },
  logger: createLogger('silent'),
  // The access log is on by default; tests that read it pass their own destination.
  accessLog: { write: () => {} }
})

/** A real platform: gateway on 127.0.0.1 and an ephemeral port, microservices as child processes. */
export async function startPlatform(
  overrides: { [k: string]: Json } = {},
  dirs = [EXAMPLE_DIR, TESTKIT_DIR]
): Promise<RunningPlatform> {
  const platform = new Platform(testConfig(overrides), TEST_PLATFORM_OPTIONS)
  const port = await platform.start(dirs)
  return { platform, url: `http://127.0.0.1:${port}`, stop: () => platform.stop() }
}

export interface Reply {
  status: number
  headers: Headers
  text: string
}

export const JSON_CT = { 'Content-Type': 'application/json' }
export const XML_CT = { 'Content-Type': 'application/xml' }

export async function post(
  url: string,
  path: string,
  body: string,
  headers: Record<string, string> = JSON_CT
): Promise<Reply> {
  const res = await fetch(url + path, { method: 'POST', body, headers })
  return { status: res.status, headers: res.headers, text: await res.text() }
}

/** Parses a problem+json body and checks its shape against the status and the request id header. */
export function problem(r: Reply): Problem {
  const ct = r.headers.get('content-type') ?? ''
  if (!ct.startsWith('application/problem+json'))
    throw new Error(`expected application/problem+json, got '${ct}': ${r.text}`)
  const p = JSON.parse(r.text) as Problem
  for (const k of ['type', 'title', 'detail', 'code', 'requestId'] as const) {
    if (typeof p[k] !== 'string' || p[k] === '') throw new Error(`problem member ${k} missing: ${r.text}`)
  }
  if (p.status !== r.status) throw new Error(`problem status ${p.status} differs from HTTP status ${r.status}`)
  if (p.requestId !== r.headers.get('x-platform-request-id'))
    throw new Error('problem requestId differs from X-PLATFORM-Request-ID')
  if (p.type !== `urn:platform:problem:${p.code}`)
    throw new Error(`problem type ${p.type} does not name code ${p.code}`)
  return p
}

export { until } from './until'

/** A copy of the example microservice (or of the one in `from`) that says it is `version`. */
export function exampleAt(version: string, from = EXAMPLE_DIR): string {
  const dir = join(mkdtempSync(join(tmpdir(), `example-${version}-`)), basename(from))
  cpSync(from, dir, { recursive: true })
  const file = join(dir, 'microservice.json')
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), version }))
  return dir
}
