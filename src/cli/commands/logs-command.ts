// `microservice logs <name> [lines]`: the last lines its processes printed (default 100).
import { loadConfig } from '../../common/config/config'
import { firstArgument, print, type Command } from '../command-line'
import { call } from '../control-client'

export const logsCommand: Command = async (line) => {
  const name = encodeURIComponent(firstArgument(line, 'name'))
  const lines = line.args[1] ?? '100'
  const r = (await call(loadConfig(), 'GET', `/microservices/${name}/logs?lines=${lines}`)) as { lines: string[] }
  print(line, r, () => r.lines.join('\n'))
  return 0
}
