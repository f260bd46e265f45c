// `microservice pack <dir> [zip]`: a microservice directory as the zip `upload` takes.
import { existsSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { errorMessage } from '../../common/errors/internal'
import { codeFile, codeFileNamed, readMicroserviceConfig } from '../../microservice/host/package-config'
import { JAVA_CLASSPATH_FILE, JAVA_HOST_MISSING, javaClassPath } from '../../microservice/host/java-host'
import { DESCRIPTION_FILE, generateDescription } from '../../platform/package/descriptions'
import { zipDirectory } from '../../platform/package/zip'
import { CliError } from '../cli-error'
import type { Command } from '../command-line'

/** `javaClassPathFile`: where the Java host's class path is, for a java package (tests name another). */
export async function pack(
  dir: string,
  out: string | undefined,
  javaClassPathFile: string = JAVA_CLASSPATH_FILE
): Promise<string> {
  const abs = resolve(dir)
  const config = readMicroserviceConfig(abs)
  if (basename(abs) !== config.name)
    throw new CliError(
      `the directory is named '${basename(abs)}' but microservice.json names '${config.name}'; a microservice is a directory named after it`,
      'IGW_PACKAGE'
    )
  if (!existsSync(join(abs, codeFile(config))))
    throw new CliError(`${codeFileNamed(config)}, is not in ${dir}`, 'IGW_PACKAGE')
  // Said as it is: wrapped as a load error below, it would read as the package's fault.
  if (config.runtime === 'java' && javaClassPath(javaClassPathFile) === null)
    throw new CliError(JAVA_HOST_MISSING, 'IGW_JAVA_HOST')
  // Beside the package directory unless told: not wherever the command happens to run.
  const zip = resolve(out ?? join(dirname(abs), `${config.name}-${config.version}.zip`))
  // The API description travels in the package (docs/contract.md: placed in the microservice directory).
  const description = await generateDescription(abs, { config, javaClassPathFile }).catch((err: unknown) => {
    throw new CliError(
      `cannot load the microservice to describe its API: ${errorMessage(err).split('\n').slice(-3).join(' ')}`,
      'IGW_MICROSERVICE_LOAD'
    )
  })
  const files = await zipDirectory(abs, config.name, zip, new Map([[DESCRIPTION_FILE, description]]))
  const operations = Object.keys((JSON.parse(description) as { paths: object }).paths).length
  return `packed ${config.name} ${config.version} (${files} files, ${operations} documented ROA method${operations === 1 ? '' : 's'}) into ${zip}`
}

export const packCommand: Command = async (line) => {
  const [dir, zip] = line.args
  if (dir === undefined) throw new CliError('usage: microservice pack <dir> [zip]')
  console.log(await pack(dir, zip))
  return 0
}
