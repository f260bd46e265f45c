import { join, relative, sep } from 'node:path'
import { readMicroserviceConfig, type NodeMicroserviceConfig } from './package-config'
import type { MicroserviceDefinition } from '../sdk/define'
import { InternalError } from '../../common/errors/internal'

function loadDefinition(dir: string, file: string): MicroserviceDefinition {
  let mod: Partial<MicroserviceDefinition> & { default?: MicroserviceDefinition; microservice?: MicroserviceDefinition }
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mod = require(file) as typeof mod
  } catch (err) {
    throw new InternalError('IGW_MICROSERVICE_LOAD', loadError(dir, err), { cause: err })
  }
  // `export default`, `export const microservice`, or CommonJS `module.exports = defineMicroservice(...)`.
  const def =
    mod.default ?? mod.microservice ?? (Array.isArray(mod.services) ? (mod as MicroserviceDefinition) : undefined)
  if (def === undefined || !Array.isArray(def.services))
    throw new InternalError(
      'IGW_MICROSERVICE_DEFINITION',
      `${relative(dir, file)} exports no microservice definition (module.exports = defineMicroservice(...), or export it as default)`
    )
  return def
}

/**
 * Why the entry module did not load, where the author can find it: `index.js:12:3: SyntaxError: …`
 * (a syntax error's place is the head of its stack, the column under its caret), or the first frame
 * of the package's own code for an error thrown while it loads.
 */
export function loadError(dir: string, err: unknown): string {
  if (!(err instanceof Error)) return `the entry module threw ${String(err)} while loading`
  const what = `${err.name}: ${err.message}`
  const stack = err.stack ?? ''
  const lines = stack.split('\n')
  const syntax = /^(.+):(\d+)$/.exec(lines[0] ?? '')
  if (err instanceof SyntaxError && syntax !== null) {
    const caret = (lines[2] ?? '').indexOf('^')
    return `${place(dir, syntax[1]!)}:${syntax[2]}${caret >= 0 ? `:${caret + 1}` : ''}: ${what}`
  }
  for (const l of lines) {
    const frame = /\(?((?:\/|[A-Za-z]:\\)[^():]+):(\d+):(\d+)\)?$/.exec(l.trim())
    if (frame !== null && frame[1]!.startsWith(dir + sep) && !frame[1]!.includes(`${sep}node_modules${sep}`)) {
      // The SDK's refusals end with the place of the call (descriptors/descriptors.ts): said once, at the front.
      const at = ` (at ${frame[1]}:${frame[2]}:${frame[3]})`
      const said = what.endsWith(at) ? what.slice(0, -at.length) : what
      return `${place(dir, frame[1]!)}:${frame[2]}:${frame[3]}: ${said}`
    }
  }
  return what
}

function place(dir: string, file: string): string {
  return file.startsWith(dir + sep) ? relative(dir, file) : file
}

/** The package's config and its code's definition, with the config's overrides applied. */
export function loadMicroservice(dir: string): { config: NodeMicroserviceConfig; def: MicroserviceDefinition } {
  const config = readMicroserviceConfig(dir)
  // The platform starts the Java host for these; only a mistaken command line brings one here.
  if (config.runtime === 'java')
    throw new InternalError(
      'IGW_MICROSERVICE_LOAD',
      `${config.name} is a "runtime": "java" package: the Java host runs ${config.jar}, not the Node host`
    )
  const code = loadDefinition(dir, join(dir, config.entry))
  const enabled = config.platformRegularExpressionToRemotelyEnabled ?? code.platformRegularExpressionToRemotelyEnabled
  if (!Array.isArray(enabled) || !enabled.every((e) => typeof e === 'string'))
    throw new InternalError(
      'IGW_MICROSERVICE_DEFINITION',
      `${config.entry}: defineMicroservice({ … }) has no platformRegularExpressionToRemotelyEnabled, so no service could be called: list the services to enable, e.g. platformRegularExpressionToRemotelyEnabled: ['${code.services[0]?.name ?? 'myService'}'] (or set it in microservice.json)`
    )
  const def: MicroserviceDefinition = {
    ...code,
    platformRegularExpressionToRemotelyEnabled: enabled,
    aliases: { ...code.aliases, ...config.aliases }
  }
  return { config, def }
}
