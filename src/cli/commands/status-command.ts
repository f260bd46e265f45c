// `microservice status <name>`: one microservice and its instances.
import { loadConfig } from '../../common/config/config'
import type { MicroserviceStatus } from '../../platform/manager'
import { firstArgument, print, type Command } from '../command-line'
import { call } from '../control-client'
import { statusText } from '../status-text'

export const statusCommand: Command = async (line) => {
  const name = encodeURIComponent(firstArgument(line, 'name'))
  const one = (await call(loadConfig(), 'GET', `/microservices/${name}`)) as MicroserviceStatus
  print(line, one, () => statusText(one))
  return 0
}
