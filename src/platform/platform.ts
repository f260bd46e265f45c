import { Gateway } from '../http/server'
import { InvokePool } from '../pool/pool'
import { MicroserviceDirectory } from '../dispatch/client'
import { MicroserviceManager, type ManagerOptions } from './manager'
import type { PlatformConfig } from '../config/config'

export interface PlatformOptions {
  /** Overrides the config's listen address (tests use 127.0.0.1 and port 0). */
  host?: string
  port?: number
  manager?: Partial<ManagerOptions>
  log?: (line: string) => void
}

/** The main server: gateway, worker pool, dispatch directory and the microservice manager in one process. */
export class Platform {
  readonly pool: InvokePool
  readonly directory: MicroserviceDirectory
  readonly gateway: Gateway
  readonly manager: MicroserviceManager
  port = 0

  constructor (readonly config: PlatformConfig, private readonly options: PlatformOptions = {}) {
    this.pool = new InvokePool(config.pool)
    this.directory = new MicroserviceDirectory(config.dispatch)
    this.gateway = new Gateway(config.gateway, this.pool, this.directory)
    this.manager = new MicroserviceManager(this.directory, {
      restartMinMs: config.microservices.restartMinMs,
      restartMaxMs: config.microservices.restartMaxMs,
      ...options.manager
    }, options.log)
  }

  /** Starts the microservices, waits until the gateway holds their catalogs, then listens. */
  async start (directories = this.config.microservices.directories): Promise<number> {
    for (const dir of directories) await this.manager.start(dir)
    for (const name of this.manager.microservices.keys()) await this.connected(name)
    this.port = await this.gateway.listen(this.options.host ?? this.config.gateway.host, this.options.port ?? this.config.gateway.port)
    return this.port
  }

  /** Resolves once the gateway has a ready connection and the catalog of `name`. */
  async connected (name: string, timeoutMs = 10000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const client = this.directory.get(name)
      if (client !== undefined && client.catalog !== null && client.unavailableReason() === null) return
      if (Date.now() > deadline) throw new Error(`microservice '${name}' did not connect within ${timeoutMs} ms`)
      await new Promise((r) => setTimeout(r, 10))
    }
  }

  async stop (): Promise<void> {
    await this.gateway.close(2000)
    await this.manager.stopAll()
    this.directory.close()
    await this.pool.close()
  }
}
