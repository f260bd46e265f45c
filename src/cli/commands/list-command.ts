// `microservice list`: the deployed microservices.
import { loadConfig } from '../../common/config/config'
import type { MicroserviceStatus } from '../../platform/manager'
import { print, type Command } from '../command-line'
import { call } from '../control-client'
import { statusText } from '../status-text'

export const listCommand: Command = async (line) => {
  const all = (await call(loadConfig(), 'GET', '/microservices')) as MicroserviceStatus[]
  print(line, all, () => (all.length === 0 ? 'no microservice is deployed' : all.map(statusText).join('\n')))
  return 0
}
