// `microservice start <name>`: start it again.
import { loadConfig } from '../../common/config/config'
import { firstArgument, type Command } from '../command-line'
import { call } from '../control-client'

export const startCommand: Command = async (line) => {
  const name = encodeURIComponent(firstArgument(line, 'name'))
  console.log(((await call(loadConfig(), 'POST', `/microservices/${name}/start`)) as { message: string }).message)
  return 0
}
