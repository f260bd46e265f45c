// `microservice bench ROUTE`: the running platform's answers that the load needs (its pid, a
// microservice's package and instances), then the run (cli/bench/).
import { existsSync } from 'node:fs'
import { errorMessage } from '../../common/errors/internal'
import { loadConfig } from '../../common/config/config'
import type { PlatformAbout } from '../../platform/control'
import type { MicroserviceStatus } from '../../platform/manager'
import { bench } from '../bench/bench'
import type { Command } from '../command-line'
import { call } from '../control-client'

export const benchCommand: Command = async (line) => {
  try {
    const config = loadConfig()
    const status = async (name: string): Promise<MicroserviceStatus> =>
      (await call(config, 'GET', `/microservices/${encodeURIComponent(name)}`)) as MicroserviceStatus
    return await bench([...line.raw], {
      // A socket file left by a platform that did not stop cleanly answers nothing: none runs.
      about: async () =>
        existsSync(config.platform.controlSocket)
          ? ((await call(config, 'GET', '/platform').catch(() => null)) as PlatformAbout | null)
          : null,
      packageDir: async (name) => (await status(name)).dir,
      instancePids: async (name) =>
        (await status(name)).instances.filter((i) => !i.remote && i.pid !== null).map((i) => i.pid!)
    })
  } catch (err) {
    console.error(`microservice bench: ${errorMessage(err)}`)
    return 1
  }
}
