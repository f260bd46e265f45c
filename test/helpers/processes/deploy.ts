// A platform that deploys from zips, its config in a file the `microservice` command reads too.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { DEFAULT_CONFIG_FILE, loadConfig } from '../../../src/common/config/config'
import { Platform } from '../../../src/platform/platform'
import { EXAMPLE_DIR, TEST_PLATFORM_OPTIONS } from '../platform'
import { zipDirectory } from '../../../src/platform/package/zip'
import { runFile, type Ran } from '../exec'

export const CLI = join(__dirname, '..', '..', '..', '..', 'bin', 'microservice')

export interface DeployPlatform {
  platform: Platform
  url: string
  configFile: string
  dir: string
  restart(): Promise<void>
  stop(): Promise<void>
}

/** A JSON object read to be edited: its members are set, not read. */
type JsonObject = Record<string, unknown>

export async function startDeployPlatform(
  overrides: (raw: Record<string, JsonObject>) => void = () => {}
): Promise<DeployPlatform> {
  const dir = mkdtempSync(join(tmpdir(), 'deploy-'))
  const raw = JSON.parse(readFileSync(DEFAULT_CONFIG_FILE, 'utf8')) as Record<string, JsonObject>
  raw.PLATFORM = {
    ...raw.PLATFORM,
    uploadDirectory: join(dir, 'upload'),
    deploymentDirectory: join(dir, 'deployments'),
    controlSocket: join(dir, 'control.sock'),
    bootstrap: [],
    drainTimeoutMs: 10000,
    drainGraceMs: 0,
    drainIdleMs: 0
  }
  raw.DISPATCH = { ...raw.DISPATCH, pingIntervalMs: 200 }
  raw.WORKER_POOL = { ...raw.WORKER_POOL, maxThreads: 2 }
  raw.MICROSERVICES = { ...raw.MICROSERVICES, restartMinMs: 100, restartMaxMs: 500 }
  overrides(raw)
  const configFile = join(dir, 'platform.json')
  writeFileSync(configFile, JSON.stringify(raw, null, 2))
  const boot = async (): Promise<Platform> => {
    const platform = new Platform(loadConfig(configFile, {}), TEST_PLATFORM_OPTIONS)
    await platform.start()
    return platform
  }
  const handle: DeployPlatform = {
    platform: await boot(),
    url: '',
    configFile,
    dir,
    async restart() {
      await handle.platform.stop()
      handle.platform = await boot()
      handle.url = `http://127.0.0.1:${handle.platform.port}`
    },
    stop: () => handle.platform.stop()
  }
  handle.url = `http://127.0.0.1:${handle.platform.port}`
  return handle
}

export type CliResult = Ran

/** Runs the real `microservice` command against the platform of `configFile`. */
export function cli(configFile: string, ...args: string[]): Promise<CliResult> {
  return runFile(process.execPath, [CLI, ...args], { ...process.env, PLATFORM_CONFIG: configFile })
}

/**
 * Copies a built microservice directory into a new folder under `workDir`, lets `edit` change its
 * config, and returns the copy (named after the microservice, as a package directory must be).
 */
export function editedCopy(from: string, workDir: string, edit: (config: JsonObject) => void = () => {}): string {
  const config = JSON.parse(readFileSync(join(from, 'microservice.json'), 'utf8')) as JsonObject
  edit(config)
  const target = join(mkdtempSync(join(workDir, 'pkg-')), String(config.name))
  cpSync(from, target, { recursive: true })
  writeFileSync(join(target, 'microservice.json'), JSON.stringify(config, null, 2))
  return target
}

/** editedCopy, zipped for upload. */
export async function packCopy(
  from: string,
  workDir: string,
  edit: (config: JsonObject) => void = () => {}
): Promise<string> {
  const target = editedCopy(from, workDir, edit)
  const config = JSON.parse(readFileSync(join(target, 'microservice.json'), 'utf8')) as JsonObject
  const zip = join(target, '..', `${String(config.name)}-${String(config.version)}.zip`)
  await zipDirectory(target, String(config.name), zip)
  return zip
}

/** The example copied into `work`, packed and uploaded with the real `microservice` command, as a user deploys it. */
export async function deployExample(d: DeployPlatform, work: string): Promise<void> {
  const dir = join(work, 'example')
  cpSync(EXAMPLE_DIR, dir, { recursive: true })
  assert.equal((await cli(d.configFile, 'pack', dir, join(work, 'example.zip'))).code, 0)
  const up = await cli(d.configFile, 'upload', join(work, 'example.zip'))
  assert.equal(up.code, 0, up.stderr)
}
