import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig, type PlatformConfig } from '../../common/config/config'
import { nginxEdgeConfig, parseNode } from '../manifests/nginx'
import { CliError } from '../cli-error'
import type { CommandLine } from '../command-line'

/** `microservice edge nginx-config`: writes (or prints) the nginx edge for the given platform nodes. */
export function edgeCommand(line: CommandLine, config: PlatformConfig = loadConfig()): number {
  const { values, positionals } = parseArgs({
    args: [...line.args],
    allowPositionals: true,
    options: {
      node: { type: 'string', multiple: true },
      listen: { type: 'string', default: '8000' },
      'h2c-listen': { type: 'string' },
      out: { type: 'string' },
      standalone: { type: 'string' },
      'max-header-bytes': { type: 'string', default: '8192' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'upstream-tls-ca': { type: 'string' },
      'upstream-tls-name': { type: 'string' },
      'client-ca': { type: 'string' },
      'client-certificates': { type: 'string' }
    }
  })
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
  if (positionals[0] !== 'nginx-config')
    throw new CliError(
      'usage: microservice edge nginx-config [--node host:port[:edgePort]]... [--listen ADDR] [--h2c-listen ADDR] [--tls-cert F --tls-key F [--client-ca F [--client-certificates require|request]]] [--upstream-tls-ca F --upstream-tls-name NAME]'
    )
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
