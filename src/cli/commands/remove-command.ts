// `microservice remove <name>`: stop it and delete its deployment.
import { loadConfig } from '../../common/config/config'
import { firstArgument, type Command } from '../command-line'
import { call } from '../control-client'

export const removeCommand: Command = async (line) => {
  const name = encodeURIComponent(firstArgument(line, 'name'))
  console.log(((await call(loadConfig(), 'DELETE', `/microservices/${name}`)) as { message: string }).message)
  return 0
}
