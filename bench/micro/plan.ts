// Plan stage: microservice → service → method lookup in the handshake catalog, against one Map.get
// of a precomputed "ms/svc/method" key.
import { MicroserviceDirectory } from '../../src/gateway/dispatch/directory'
import { CatalogIndex } from '../../src/gateway/dispatch/catalog'
import { gateway } from '../../src/common/protocol/generated/gateway'
import { parseRoute } from '../../src/gateway/invoke/route'
import { pair, type Pair } from './common'

export async function run(): Promise<Pair[]> {
  const dir = new MicroserviceDirectory({
    connectionsPerMicroservice: 1,
    connectTimeoutMs: 1000,
    pingIntervalMs: 60000,
    availabilityTimeoutMs: 20000,
    ejectAfterMs: 2000,
    reconnectMinMs: 1000,
    reconnectMaxMs: 1000,
    maxFrameBytes: 1 << 20,
    servingVersions: 'all'
  })
  const client = dir.register('example', { host: '127.0.0.1', port: 9 }) // port 9: nothing listens, no catalog needed to look up
  client.catalog = new CatalogIndex(
    gateway.Catalog.create({
      microservice: 'example',
      services: [
        {
          name: 'calculator',
          remotelyEnabled: true,
          methods: ['multiply', 'multiplyInts', 'multiplyToInt', 'multiplyIntsToOut', 'sumProducts'].map((name) => ({
            name,
            parameterCount: 1
          }))
        }
      ]
    })
  )
  const flat = new Map([['example/calculator/multiply', { parameterCount: 1 }]])
  const plan = (): unknown => {
    const r = parseRoute('/example/calculator/multiply')!
    return dir.get(r[0])?.catalog?.service(r[1])?.get(r[2])
  }
  if (plan() === undefined) throw new Error('plan stage found nothing')
  try {
    return [
      await pair(
        'route+plan',
        'catalog',
        ['parseRoute + 3 lookups', plan],
        ['one Map.get', () => flat.get('example/calculator/multiply')]
      )
    ]
  } finally {
    dir.close()
  }
}
