// `microservice rollback <name> [--node URL]...`: back to the version the current one replaced.
import { loadConfig } from '../../common/config/config'
import { firstArgument, type Command } from '../command-line'
import { call } from '../control-client'
import { acrossNodes } from '../nodes'

export const rollbackCommand: Command = async (line) => {
  const config = loadConfig()
  if (line.args.includes('--node'))
    return await acrossNodes('rollback', [...line.args], line.force, config.platform.unpack)
  const name = encodeURIComponent(firstArgument(line, 'name'))
  console.log(((await call(config, 'POST', `/microservices/${name}/rollback`)) as { message: string }).message)
  return 0
}
