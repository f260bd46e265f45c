// `microservice upload <zip_file>`: hands a package to the platform and waits for its verdict.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { type PlatformConfig } from '../../gateway/config/config'
import { readMicroserviceConfig, type MicroserviceConfig } from '../../microservice/host/package-config'
import type { MicroserviceStatus } from '../../platform/manager'
import type { UploadResult } from '../../platform/package/deployer'
import { versionRefusal } from '../../platform/package/upgrade-check'
import { unpackZip, zipEntryNames, type UnpackLimits } from '../../platform/package/zip'
import { CliError } from '../cli-error'
import { control } from '../control-client'

export async function upload(
  config: PlatformConfig,
  file: string,
  force: boolean,
  timeoutMs = 120000
): Promise<string> {
  if (!existsSync(file) || !statSync(file).isFile()) throw new CliError(`${file} is not a file`)
  const dir = config.platform.uploadDirectory
  if (!existsSync(dir))
    throw new CliError(
      `the upload directory ${dir} does not exist; is the platform set up (npm start)?`,
      'IGW_CLI_PLATFORM'
    )
  if (!force) {
    const incoming = await packageConfigOf(file, config.platform.unpack)
    const refusal =
      incoming === null
        ? null
        : versionRefusal(incoming.name, incoming.version, await runningVersion(config, incoming.name))
    if (refusal !== null) throw new CliError(refusal, 'IGW_CLI_REFUSED')
  }
  const name = basename(file).endsWith('.zip') ? basename(file) : `${basename(file)}.zip`
  const result = join(dir, 'results', `${name}.json`)
  rmSync(result, { force: true })
  // Copied under a hidden name and renamed: the platform only ever sees a complete file.
  const part = join(dir, `.${name}.part`)
  copyFileSync(file, part)
  renameSync(part, join(dir, name))
  const deadline = Date.now() + timeoutMs
  while (!existsSync(result)) {
    if (Date.now() > deadline)
      throw new CliError(
        `no verdict on ${name} within ${timeoutMs / 1000} s; is the platform running?`,
        'IGW_CLI_PLATFORM'
      )
    await new Promise((r) => setTimeout(r, 100))
  }
  const r = JSON.parse(readFileSync(result, 'utf8')) as UploadResult
  if (!r.ok) throw new CliError(r.message, 'IGW_CLI_REFUSED')
  return r.message
}

/**
 * The package's microservice.json, unpacked with the platform's checks; null when it has none that
 * reads: the platform's verdict then says why, in the words it uses for every upload.
 */
export async function packageConfigOf(zip: string, limits: UnpackLimits): Promise<MicroserviceConfig | null> {
  const dir = mkdtempSync(join(tmpdir(), 'microservice-package-'))
  try {
    return readMicroserviceConfig(join(dir, 'package', await unpackZip(resolve(zip), join(dir, 'package'), limits)))
  } catch {
    return null
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The version the local platform runs of `name`; null when none, or when no platform answers. */
export async function runningVersion(config: PlatformConfig, name: string): Promise<string | null> {
  try {
    const r = await control(config, 'GET', `/microservices/${encodeURIComponent(name)}`)
    return r.status === 200 ? (r.body as MicroserviceStatus).version : null
  } catch {
    return null
  }
}

/** The microservice a package holds: its top-level directory. */
export async function zipMicroserviceName(file: string): Promise<string> {
  const names = await zipEntryNames(file)
  const top = new Set(names.map((n) => n.split('/')[0]).filter((n) => n !== undefined && n !== ''))
  if (top.size !== 1)
    throw new CliError(`${file} is not a microservice package: one top-level directory expected`, 'IGW_PACKAGE')
  return [...top][0]!
}
