import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig, type PlatformConfig } from '../../common/config/config'
import { nginxEdgeConfig, parseNode } from './nginx'
import { CliError } from '../cli-error'
import type { CommandLine } from '../command-line'

interface EdgeOption {
  type: 'string' | 'boolean'
  multiple?: boolean
  short?: string
  default?: string
  /** Its value in the usage (none for a flag). */
  value?: string
  /** What it does, one line; its default as the usage shows it. */
  help: string
}

/** Every option of `microservice edge nginx-config`: parseArgs reads these, the usage lists these. */
export const EDGE_OPTIONS = {
  node: {
    type: 'string',
    multiple: true,
    value: 'host:gatewayPort[:edgePort]',
    help: "a platform node behind the edge, repeated for each (default: this config's gateway and edge on 127.0.0.1; edge port 8000)"
  },
  listen: { type: 'string', default: '8000', value: 'ADDR', help: 'where nginx listens for clients (default: 8000)' },
  'h2c-listen': {
    type: 'string',
    value: 'ADDR',
    help: 'a second, plain listener speaking HTTP/2 with prior knowledge (h2c) (default: none)'
  },
  out: { type: 'string', value: 'FILE', help: 'write the configuration to FILE (default: standard output)' },
  standalone: {
    type: 'string',
    value: 'PREFIX',
    help: 'a whole nginx.conf for `nginx -p PREFIX` instead of an http-level include (default: an include)'
  },
  'max-header-bytes': {
    type: 'string',
    default: '8192',
    value: 'N',
    help: 'the longest request line or header line; longer is answered 431 (default: 8192)'
  },
  'tls-cert': {
    type: 'string',
    value: 'FILE',
    help: 'TLS towards clients: the certificate nginx presents (PEM), with --tls-key (default: plain HTTP)'
  },
  'tls-key': { type: 'string', value: 'FILE', help: 'the key of --tls-cert (PEM) (default: none)' },
  'upstream-tls-ca': {
    type: 'string',
    value: 'FILE',
    help: 'TLS towards the nodes: the CAs that sign their certificates, with --upstream-tls-name (default: plain HTTP)'
  },
  'upstream-tls-name': {
    type: 'string',
    value: 'NAME',
    help: "the name the nodes' certificates hold, verified by nginx (default: none)"
  },
  'upstream-edge-tls': {
    type: 'string',
    value: 'on|off',
    help: "whether the nodes' embedded edges speak TLS too; off for an edge left plain (default: on with --upstream-tls-ca, else off)"
  },
  'client-ca': {
    type: 'string',
    value: 'FILE',
    help: 'verify client certificates against these CAs, with --tls-cert (default: none asked for)'
  },
  'client-certificates': {
    type: 'string',
    value: 'require|request',
    help: 'with --client-ca: refuse a call without one, or only ask for one (default: require)'
  },
  help: { type: 'boolean', short: 'h', help: 'this text' }
} as const satisfies Record<string, EdgeOption>

/** The usage of `microservice edge nginx-config`: every option, one line each. */
export const EDGE_USAGE = `usage: microservice edge nginx-config [OPTION]...
The nginx configuration of one edge in front of several platform nodes (docs/edge.md).
${Object.entries(EDGE_OPTIONS as Record<string, EdgeOption>)
  .map(([name, o]) => {
    const flag = `--${name}${o.value === undefined ? '' : ` ${o.value}`}${o.short === undefined ? '' : `, -${o.short}`}`
    return `  ${flag.padEnd(46)} ${o.help}`
  })
  .join('\n')}`

/** `microservice edge nginx-config`: writes (or prints) the nginx edge for the given platform nodes. */
export function edgeCommand(line: CommandLine, config: PlatformConfig = loadConfig()): number {
  const { values, positionals } = parseArgs({
    args: [...line.args],
    allowPositionals: true,
    options: EDGE_OPTIONS
  })
  if (values.help === true) {
    console.log(EDGE_USAGE)
    return 0
  }
  const cert = values['tls-cert']
  const key = values['tls-key']
  if ((cert === undefined) !== (key === undefined))
    throw new CliError('--tls-cert and --tls-key go together: the certificate nginx presents to clients and its key')
  const ca = values['upstream-tls-ca']
  const name = values['upstream-tls-name']
  if ((ca === undefined) !== (name === undefined))
    throw new CliError(
      "--upstream-tls-ca and --upstream-tls-name go together: the CAs that sign the nodes' certificates and the name those hold"
    )
  const clientCa = values['client-ca']
  const clientMode = values['client-certificates'] ?? (clientCa === undefined ? undefined : 'require')
  if (clientMode !== undefined && clientMode !== 'request' && clientMode !== 'require')
    throw new CliError(`--client-certificates ${clientMode}: "require" (a call without one is refused) or "request"`)
  if (clientMode !== undefined && clientCa === undefined)
    throw new CliError("--client-certificates needs --client-ca: the CAs that sign the clients' certificates")
  if (clientCa !== undefined && cert === undefined)
    throw new CliError('--client-ca needs --tls-cert and --tls-key: nginx asks for client certificates over TLS')
  const edgeTls = values['upstream-edge-tls']
  if (edgeTls !== undefined && edgeTls !== 'on' && edgeTls !== 'off')
    throw new CliError(`--upstream-edge-tls ${edgeTls}: "on" or "off"`)
  if (edgeTls === 'on' && ca === undefined)
    throw new CliError(
      '--upstream-edge-tls on needs --upstream-tls-ca and --upstream-tls-name: how nginx verifies the edges'
    )
  if (positionals[0] !== 'nginx-config') throw new CliError(EDGE_USAGE)
  const maxHeaderBytes = Number(values['max-header-bytes'])
  if (!Number.isInteger(maxHeaderBytes) || maxHeaderBytes < 1024)
    throw new CliError('--max-header-bytes: a whole number of bytes, at least 1024')
  const nodes = (values.node ?? [`127.0.0.1:${config.gateway.port}:${config.edge.port}`]).map(parseNode)
  const text = nginxEdgeConfig({
    nodes,
    listen: values.listen,
    h2cListen: values['h2c-listen'] ?? null,
    maxBodyBytes: config.gateway.maxBodyBytes,
    executingTimeoutMs: config.gateway.executingTimeoutMs,
    maxHeaderBytes,
    tls: cert !== undefined && key !== undefined ? { certFile: resolve(cert), keyFile: resolve(key) } : null,
    clientCertificates:
      clientCa !== undefined
        ? { caFile: resolve(clientCa), mode: clientMode === 'request' ? 'request' : 'require' }
        : null,
    upstreamTls: ca !== undefined && name !== undefined ? { caFile: resolve(ca), serverName: name } : null,
    upstreamEdgeTls: edgeTls === undefined ? ca !== undefined : edgeTls === 'on',
    standalone: values.standalone === undefined ? null : { prefix: resolve(values.standalone) }
  })
  if (values.out === undefined) process.stdout.write(text)
  else {
    writeFileSync(values.out, text)
    console.log(
      `wrote the nginx edge for ${nodes.length} node(s) to ${values.out}; check it with nginx -t, then nginx -s reload`
    )
  }
  return 0
}
