import { join } from 'node:path'
import { readMicroserviceConfig, type MicroserviceConfig } from './package-config'
import type { MicroserviceDefinition } from './define'

function loadDefinition(file: string): MicroserviceDefinition {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(file) as Partial<MicroserviceDefinition> & {
    default?: MicroserviceDefinition
    microservice?: MicroserviceDefinition
  }
  // `export default`, `export const microservice`, or CommonJS `module.exports = defineMicroservice(...)`.
  const def =
    mod.default ?? mod.microservice ?? (Array.isArray(mod.services) ? (mod as MicroserviceDefinition) : undefined)
  if (def === undefined || !Array.isArray(def.services))
    throw new Error(
      `${file} exports no microservice definition (module.exports = defineMicroservice(...), or export it as default)`
    )
  return def
}

/** The package's config and its code's definition, with the config's overrides applied. */
export function loadMicroservice(dir: string): { config: MicroserviceConfig; def: MicroserviceDefinition } {
  const config = readMicroserviceConfig(dir)
  const code = loadDefinition(join(dir, config.entry))
  const def: MicroserviceDefinition = {
    ...code,
    platformRegularExpressionToRemotelyEnabled:
      config.platformRegularExpressionToRemotelyEnabled ?? code.platformRegularExpressionToRemotelyEnabled,
    aliases: { ...code.aliases, ...config.aliases }
  }
  return { config, def }
}
