// `microservice upload <zip_file>`: hands a package to the platform and waits for its verdict.
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { loadConfig, type PlatformConfig } from '../../common/config/config'
import type { MicroserviceStatus } from '../../platform/manager'
import type { UploadResult } from '../../platform/package/deployer'
import { versionRefusal } from '../../platform/package/upgrade-check'
import { CliError } from '../cli-error'
import { firstArgument, type Command } from '../command-line'
import { control } from '../control-client'
import { acrossNodes } from '../nodes'
import { packageConfigOf } from '../package-file'

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

/** The version the local platform runs of `name`; null when none, or when no platform answers. */
export async function runningVersion(config: PlatformConfig, name: string): Promise<string | null> {
  try {
    const r = await control(config, 'GET', `/microservices/${encodeURIComponent(name)}`)
    return r.status === 200 ? (r.body as MicroserviceStatus).version : null
  } catch {
    return null
  }
}

export const uploadCommand: Command = async (line) => {
  const config = loadConfig()
  if (line.args.includes('--node'))
    return await acrossNodes('upload', [...line.args], line.force, config.platform.unpack)
  console.log(await upload(config, firstArgument(line, 'zip_file'), line.force))
  return 0
}
