// The control command: `microservice <command>`, its usage and the dispatch to commands/NAME-command.ts.
// It finds the platform through the same config file (PLATFORM_CONFIG, default config/platform.json).
import { productVersion } from '../common/contract/product-version'
import { errorMessage } from '../common/errors/internal'
import { BENCH_USAGE } from './bench/bench-plan'
import { CliError } from './cli-error'
import { commandLine, type Command } from './command-line'
import { benchCommand } from './commands/bench-command'
import { devCommand } from './commands/dev-command'
import { edgeCommand, EDGE_USAGE } from './manifests/edge-command'
import { hostCommand } from './commands/host-command'
import { imageCommand } from './commands/image-command'
import { kubeCommand } from './manifests/kube-command'
import { listCommand } from './commands/list-command'
import { logsCommand } from './commands/logs-command'
import { monitoringCommand, MONITORING_USAGE } from './manifests/monitoring-command'
import { packCommand } from './commands/pack-command'
import { removeCommand } from './commands/remove-command'
import { rollbackCommand } from './commands/rollback-command'
import { startCommand } from './commands/start-command'
import { statusCommand } from './commands/status-command'
import { stopCommand } from './commands/stop-command'
import { uploadCommand } from './commands/upload-command'

export const USAGE = `usage: microservice <command>

  pack <dir> [zip]       zip a microservice directory (named after the microservice) for upload, into
                         zip or beside the directory as <name>-<version>.zip
  upload <zip_file> [--force]
                         copy a package into the upload directory and wait for the platform's verdict;
                         the version deployed already, or an older one, only with --force
  upload <zip_file> --node URL [--node URL]... [--token-env NAME] [--force]
                         deploy to several platforms, one at a time: each must serve the new version
                         before the next gets it; stops at the first failure and says where each is
                         (URL: a node's admin listener, http://host:9090; the token: ADMIN.deployTokenEnv)
  rollback <name> [--node URL]... [--token-env NAME]
                         back to the version the current one replaced (a second rollback rolls forward)
  dev <dir>              deploy the directory to the local platform, and again on every change under
                         it, printing each verdict (a load error with its file:line:column); Ctrl+C stops
  list                   the deployed microservices
  status <name>          one microservice and its instances
  stop <name>            stop it (it stays deployed)
  start <name>           start it again
  remove <name>          stop it and delete its deployment
  logs <name> [lines]    the last lines its processes printed (default 100)
  host <dir> [--listen tcp:HOST:PORT] [--secret-env NAME] [--drain-ms MS]
                         run one microservice on its own, for a platform on another host
                         (MICROSERVICES.remote there names this host, port and secret);
                         SIGTERM drains: GoAway to the gateways, calls answered, up to MS (20000)
  edge nginx-config [--node host:gatewayPort[:edgePort]]... [OPTION]... (edge --help lists every option)
                         the nginx configuration of one edge in front of several platforms
  image <zip_file> [--base IMAGE] [--tag NAME]
                         an image of one package on top of the platform's (npm run image), for a
                         microservice that runs as its own pod (podman; no Docker engine needed)
  bench <microservice/service/method> [-c 1,16,64] [-d 10s] [--save F] [--baseline F] [--json F] ...
                         load on one method through the running platform: req/s, latency
                         percentiles, errors; a comparison with a saved run (bench --help)
  kube manifests [--out DIR] [--namespace NS] [--image IMAGE] [--microservice NAME=IMAGE:DIR]...
                         Kubernetes manifests (kustomize) of the gateway and one Deployment per microservice
  monitoring rules [--runbook-base-url URL] [--out FILE]
                         the Prometheus rules, each alert's runbook_url under URL (where docs/ are served)

  --json                 list, status and logs print JSON (what the control socket answers)
  -h, --help             this text
  -v, --version          the version

The platform is found through PLATFORM_CONFIG (default: config/platform.json).`

/** One command's lines of USAGE (its forms and their explanations), or null for no such command. */
export function commandUsage(command: string): string | null {
  if (command === 'bench') return BENCH_USAGE
  if (command === 'edge') return EDGE_USAGE
  if (command === 'monitoring') return MONITORING_USAGE
  const lines = USAGE.split('\n')
  const out: string[] = []
  let inside = false
  for (const line of lines) {
    const head = /^ {2}(\S+)/.exec(line)
    if (head !== null) inside = head[1] === command
    else if (!/^ {3,}\S/.test(line)) inside = false
    if (inside) out.push(line)
  }
  return out.length === 0 ? null : `usage: microservice\n${out.join('\n')}`
}

/** Each command, by the name typed: one file each (commands/NAME-command.ts). */
export const COMMANDS: Readonly<Record<string, Command>> = {
  pack: packCommand,
  upload: uploadCommand,
  rollback: rollbackCommand,
  dev: devCommand,
  list: listCommand,
  status: statusCommand,
  stop: stopCommand,
  start: startCommand,
  remove: removeCommand,
  logs: logsCommand,
  host: hostCommand,
  edge: edgeCommand,
  image: imageCommand,
  bench: benchCommand,
  kube: kubeCommand,
  monitoring: monitoringCommand
}

export async function main(args: string[]): Promise<number> {
  // --json and --force may come before the command's name too.
  const at = args.findIndex((x) => x !== '--json' && x !== '--force')
  const name = at < 0 ? undefined : args[at]
  const line = commandLine(name ?? '', at < 0 ? [] : args.slice(at + 1), args)
  // bench has options of its own (--json FILE among them) and says its own errors.
  if (name === 'bench' && !line.args.some((x) => x === '--help' || x === '-h')) return await benchCommand(line)
  try {
    if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
      console.log(USAGE)
      return name === undefined ? 2 : 0
    }
    if (name === '--version' || name === '-v') {
      console.log(`microservice (invocation-gateway) ${productVersion()}`)
      return 0
    }
    if (line.args.some((x) => x === '--help' || x === '-h')) {
      console.log(commandUsage(name) ?? USAGE)
      return 0
    }
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
    if (command === undefined) throw new CliError(`unknown command '${name}'\n\n${USAGE}`)
    return await command(line)
  } catch (err) {
    console.error(`microservice: ${errorMessage(err)}`)
    return 1
  }
}

if (require.main === module)
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code
    },
    (err: unknown) => {
      console.error(err)
      process.exitCode = 1
    }
  )
