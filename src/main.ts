// `npm start`: the platform (gateway on :8082 and the configured microservices) in this process.
import { loadConfig } from './config/config'
import { Platform } from './platform/platform'

async function main(): Promise<void> {
  const config = loadConfig()
  const platform = new Platform(config)
  const port = await platform.start()
  const names = [...platform.manager.microservices.keys()].join(', ')
  console.log(`gateway listening on ${config.gateway.host}:${port}; microservices: ${names}`)
  if (platform.edge !== null)
    console.log(
      `edge listening on ${config.edge.host}:${platform.edgePort}: /_swagger/{microservice}, /_eapi/ELASTIC_HTTP/…`
    )

  let stopping = false
  const stop = (signal: string): void => {
    if (stopping) return
    stopping = true
    console.log(`${signal}: stopping`)
    platform.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err)
        process.exit(1)
      }
    )
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
}

main().catch((err: unknown) => {
  console.error(`platform failed to start: ${err instanceof Error ? err.message : String(err)}`)
  process.exit(1)
})
