// What the CLI reads of a package zip before handing it over: its microservice and its microservice.json.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { readMicroserviceConfig, type MicroserviceConfig } from '../microservice/host/package-config'
import { unpackZip, zipEntryNames, type UnpackLimits } from '../platform/package/zip'
import { CliError } from './cli-error'

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

/** The microservice a package holds: its top-level directory. */
export async function zipMicroserviceName(file: string): Promise<string> {
  const names = await zipEntryNames(file)
  const top = new Set(names.map((n) => n.split('/')[0]).filter((n) => n !== undefined && n !== ''))
  if (top.size !== 1)
    throw new CliError(`${file} is not a microservice package: one top-level directory expected`, 'IGW_PACKAGE')
  return [...top][0]!
}
