// The control command: `microservice pack|upload|list|status|stop|start|remove|logs`.
// It finds the platform through the same config file (PLATFORM_CONFIG, default config/platform.json).
import { existsSync } from 'node:fs'
import { productVersion } from '../common/contract/product-version'
import { errorMessage } from '../common/errors/internal'
import { loadConfig } from '../gateway/config/config'
import type { PlatformAbout } from '../platform/control'
import type { MicroserviceStatus } from '../platform/manager'
import { BENCH_USAGE, benchCommand } from './bench/bench-command'
import { CliError } from './cli-error'
import { dev } from './commands/dev'
import { edgeCommand } from './commands/edge-command'
import { hostCommand } from './commands/host-command'
import { imageCommand } from './commands/image-command'
import { kubeCommand } from './commands/kube-command'
import { acrossNodes } from './commands/nodes'
import { pack } from './commands/pack'
import { statusText } from './commands/status-text'
import { upload } from './commands/upload'
import { call } from './control-client'

const USAGE = `usage: microservice <command>

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
  edge nginx-config [--node host:gatewayPort[:edgePort]]... [--listen 8000] [--out FILE] [--standalone PREFIX] [--max-header-bytes 8192]
                         the nginx configuration of one edge in front of several platforms
  image <zip_file> [--base IMAGE] [--tag NAME]
                         an image of one package on top of the platform's (npm run image), for a
                         microservice that runs as its own pod (podman; no Docker engine needed)
  bench <microservice/service/method> [-c 1,16,64] [-d 10s] [--save F] [--baseline F] [--json F] ...
                         load on one method through the running platform: req/s, latency
                         percentiles, errors; a comparison with a saved run (bench --help)
  kube manifests [--out DIR] [--namespace NS] [--image IMAGE] [--microservice NAME=IMAGE:DIR]...
                         Kubernetes manifests (kustomize) of the gateway and one Deployment per microservice

  --json                 list, status and logs print JSON (what the control socket answers)
  -h, --help             this text
  -v, --version          the version

The platform is found through PLATFORM_CONFIG (default: config/platform.json).`

/** One command's lines of USAGE (its forms and their explanations), or null for no such command. */
export function commandUsage(command: string): string | null {
  if (command === 'bench') return BENCH_USAGE
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

export async function main(args: string[]): Promise<number> {
  // bench has options of its own (--json FILE among them).
  if (args[0] === 'bench' && !args.slice(1).some((x) => x === '--help' || x === '-h')) {
    try {
      const config = loadConfig()
      const status = async (name: string): Promise<MicroserviceStatus> =>
        (await call(config, 'GET', `/microservices/${encodeURIComponent(name)}`)) as MicroserviceStatus
      return await benchCommand(args.slice(1), {
        // A socket file left by a platform that did not stop cleanly answers nothing: none runs.
        about: async () =>
          existsSync(config.platform.controlSocket)
            ? ((await call(config, 'GET', '/platform').catch(() => null)) as PlatformAbout | null)
            : null,
        packageDir: async (name) => (await status(name)).dir,
        instancePids: async (name) =>
          (await status(name)).instances.filter((i) => !i.remote && i.pid !== null).map((i) => i.pid!)
      })
    } catch (err) {
      console.error(`microservice bench: ${errorMessage(err)}`)
      return 1
    }
  }
  const json = args.includes('--json')
  const force = args.includes('--force')
  const argv = args.filter((x) => x !== '--json' && x !== '--force')
  const [command, a, b] = argv
  const print = (value: unknown, text: () => string): void =>
    console.log(json ? JSON.stringify(value, null, 2) : text())
  try {
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      console.log(USAGE)
      return command === undefined ? 2 : 0
    }
    if (command === '--version' || command === '-v') {
      console.log(`microservice (invocation-gateway) ${productVersion()}`)
      return 0
    }
    if (argv.slice(1).some((x) => x === '--help' || x === '-h')) {
      console.log(commandUsage(command) ?? USAGE)
      return 0
    }
    if (command === 'pack') {
      if (a === undefined) throw new CliError('usage: microservice pack <dir> [zip]')
      console.log(await pack(a, b))
      return 0
    }
    if (command === 'host') return await hostCommand(argv.slice(1))
    if (command === 'kube') return kubeCommand(argv.slice(1))
    if (command === 'image') return await imageCommand(argv.slice(1))
    const config = loadConfig()
    if (command === 'edge') return edgeCommand(config, argv.slice(1))
    const need = (what: string): string => {
      if (a === undefined) throw new CliError(`usage: microservice ${command} <${what}>`)
      return a
    }
    if ((command === 'upload' || command === 'rollback') && argv.includes('--node'))
      return await acrossNodes(command, argv.slice(1), force, config.platform.unpack)
    switch (command) {
      case 'dev':
        return await dev(config, need('dir'))
      case 'upload':
        console.log(await upload(config, need('zip_file'), force))
        return 0
      case 'rollback':
        console.log(
          (
            (await call(config, 'POST', `/microservices/${encodeURIComponent(need('name'))}/rollback`)) as {
              message: string
            }
          ).message
        )
        return 0
      case 'list': {
        const all = (await call(config, 'GET', '/microservices')) as MicroserviceStatus[]
        print(all, () => (all.length === 0 ? 'no microservice is deployed' : all.map(statusText).join('\n')))
        return 0
      }
      case 'status': {
        const one = (await call(
          config,
          'GET',
          `/microservices/${encodeURIComponent(need('name'))}`
        )) as MicroserviceStatus
        print(one, () => statusText(one))
        return 0
      }
      case 'stop':
      case 'start':
        console.log(
          (
            (await call(config, 'POST', `/microservices/${encodeURIComponent(need('name'))}/${command}`)) as {
              message: string
            }
          ).message
        )
        return 0
      case 'remove':
        console.log(
          ((await call(config, 'DELETE', `/microservices/${encodeURIComponent(need('name'))}`)) as { message: string })
            .message
        )
        return 0
      case 'logs': {
        const r = (await call(
          config,
          'GET',
          `/microservices/${encodeURIComponent(need('name'))}/logs?lines=${b ?? '100'}`
        )) as { lines: string[] }
        print(r, () => r.lines.join('\n'))
        return 0
      }
      default:
        throw new CliError(`unknown command '${command}'\n\n${USAGE}`)
    }
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
