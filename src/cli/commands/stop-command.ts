// `microservice stop <name>`: stop it (it stays deployed).
import { loadConfig } from '../../common/config/config'
import { firstArgument, type Command } from '../command-line'
import { call } from '../control-client'

export const stopCommand: Command = async (line) => {
  const name = encodeURIComponent(firstArgument(line, 'name'))
  console.log(((await call(loadConfig(), 'POST', `/microservices/${name}/stop`)) as { message: string }).message)
  return 0
}
