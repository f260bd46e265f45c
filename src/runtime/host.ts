// The process of one microservice: `node host.js <microservice directory>`. Started by the
// platform with an IPC channel; reports {type:'listening', port} once its TCP server is up.
import { join, resolve } from 'node:path'
import { getHeapStatistics } from 'node:v8'
import { readMicroserviceConfig } from './package-config'
import { MicroserviceServer } from './server'
import type { MicroserviceDefinition } from './define'
import { bindHost } from './availability'

export interface HostMessage {
  type: 'listening'
  name: string
  port: number
}

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

async function main(): Promise<void> {
  const dir = resolve(process.argv[2] ?? '.')
  const config = readMicroserviceConfig(dir)
  const code = loadDefinition(join(dir, config.entry))
  const def: MicroserviceDefinition = {
    ...code,
    platformRegularExpressionToRemotelyEnabled:
      config.platformRegularExpressionToRemotelyEnabled ?? code.platformRegularExpressionToRemotelyEnabled,
    aliases: { ...code.aliases, ...config.aliases }
  }
  const server = new MicroserviceServer(def, {
    name: config.name,
    version: config.version,
    settings: config.settings,
    privilegedNames: config.permissions.privilegedNames
  })
  bindHost({
    setAvailable: (flag) => {
      server.available = flag
    },
    stats: server.stats
  })
  const port = await server.listen(0, '127.0.0.1')
  const msg: HostMessage = { type: 'listening', name: config.name, port }
  console.log(
    `microservice ${config.name} ${config.version} listening on 127.0.0.1:${port} (pid ${process.pid}, heap limit ${Math.round(getHeapStatistics().heap_size_limit / 2 ** 20)} MB)`
  )
  if (process.send !== undefined) process.send(msg)

  const stop = (): void => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1)
    )
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  // The platform went away: nobody can reach us any more.
  process.on('disconnect', stop)
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(`microservice failed to start: ${(err as Error).message}`)
    process.exit(78)
  })
}
