// The process of one microservice: `node host.js <microservice directory>`. Started by the
// platform with an IPC channel; reports {type:'listening', port} once its TCP server is up.
// `node host.js --describe <directory>` prints the microservice's OpenAPI description and exits:
// the microservice's code runs in a process of its own, never in the platform's or the CLI's.
import { yieldHelperThreads } from '../../common/process/thread-priority'
import { resolve } from 'node:path'
import { getHeapStatistics } from 'node:v8'
import { loadMicroservice } from './load-microservice'
import { InternalError, errorMessage } from '../../common/errors/internal'
import { describeMicroservice, SHIPPED_DEFAULTS, type CallDefaults } from './openapi'
import { isApiMode, isSequenceName } from '../../common/contract/vocabulary'
import { MicroserviceServer, type TlsServerOptions } from './microservice-server'
import { readFileSync } from 'node:fs'
import { createSecureContext } from 'node:tls'
import { FileRenewal } from '../../common/tls/file-renewal'
import { bindHost } from '../sdk/availability'
import { parseEndpoint, endpointText, type Endpoint } from '../../common/protocol/endpoint'

export interface HostMessage {
  type: 'listening'
  name: string
  endpoint: Endpoint
}

/** What the platform sends its instances: stop (after the gateway has drained, or to replace one). */
export interface PlatformMessage {
  type: 'stop'
}

/**
 * Where to listen: MICROSERVICE_LISTEN (`unix:/path`, `tcp:host:port`, or `tls:host:port` with
 * MICROSERVICE_TLS_CERT_FILE, MICROSERVICE_TLS_KEY_FILE and, for mutual TLS, MICROSERVICE_TLS_CA_FILE),
 * else loopback TCP, any port.
 */
function listenTarget(): { endpoint: Endpoint; tls: TlsServerOptions | null } {
  const spec = process.env.MICROSERVICE_LISTEN
  if (spec === undefined || spec === '') return { endpoint: { host: '127.0.0.1', port: 0 }, tls: null }
  const tls = spec.startsWith('tls:')
  const e = parseEndpoint(tls ? `tcp:${spec.slice(4)}` : spec)
  if (e === null || (tls && 'path' in e))
    throw new InternalError(
      'IGW_HOST_SETTING',
      `MICROSERVICE_LISTEN '${spec}' is neither unix:/path, tcp:host:port nor tls:host:port`
    )
  return { endpoint: e, tls: tls ? tlsServerFiles() : null }
}

/** The TLS variables' files (MICROSERVICE_TLS_*_FILE), for the stamp that tells a renewal. */
function tlsFileNames(): string[] {
  return ['MICROSERVICE_TLS_CERT_FILE', 'MICROSERVICE_TLS_KEY_FILE', 'MICROSERVICE_TLS_CA_FILE']
    .map((v) => process.env[v] ?? '')
    .filter((f) => f !== '')
}

/**
 * Renewed TLS files taken up without a restart (a mounted Secret that cert-manager renews): looked at
 * every MICROSERVICE_TLS_RELOAD_MS (10 s), read and checked whole before new connections get them.
 */
function renewTlsFiles(server: MicroserviceServer, name: string): void {
  const ms = Number(process.env.MICROSERVICE_TLS_RELOAD_MS ?? '10000')
  new FileRenewal<TlsServerOptions>(
    {
      files: tlsFileNames,
      load: tlsServerFiles,
      serve: (tls) => {
        server.renewTls(tls)
        return true
      },
      served: () => console.log(`microservice ${name}: renewed TLS files served to new connections`),
      refused: (err) =>
        console.error(
          `microservice ${name}: renewed TLS files refused, the current ones served on: ${errorMessage(err)}`
        )
    },
    Number.isInteger(ms) && ms > 0 ? ms : 10000
  ).start()
}

function tlsServerFiles(): TlsServerOptions {
  const read = (variable: string, needed: boolean): string | null => {
    const file = process.env[variable] ?? ''
    if (file === '') {
      if (!needed) return null
      throw new InternalError('IGW_HOST_SETTING', `MICROSERVICE_LISTEN tls: needs ${variable} (a PEM file)`)
    }
    try {
      return readFileSync(file, 'utf8')
    } catch (err) {
      throw new InternalError('IGW_HOST_SETTING', `${variable} ${file}: ${errorMessage(err)}`)
    }
  }
  const options = {
    cert: read('MICROSERVICE_TLS_CERT_FILE', true)!,
    key: read('MICROSERVICE_TLS_KEY_FILE', true)!,
    ca: read('MICROSERVICE_TLS_CA_FILE', false)
  }
  try {
    // A pair that does not match, or a file that is not PEM, refused here with OpenSSL's reason.
    createSecureContext({ cert: options.cert, key: options.key, ...(options.ca !== null ? { ca: options.ca } : {}) })
  } catch (err) {
    throw new InternalError('IGW_HOST_SETTING', `MICROSERVICE_TLS_CERT_FILE and _KEY_FILE: ${errorMessage(err)}`)
  }
  return options
}

/**
 * How long a stopping host waits for its gateways to finish their calls and close their connections
 * (MICROSERVICE_DRAIN_MS): less than what its supervisor allows before SIGKILL (the platform's 5 s, a
 * pod's terminationGracePeriodSeconds after its preStop).
 */
function drainMs(): number {
  const managed = process.env.MICROSERVICE_MANAGED === '1'
  const spec = process.env.MICROSERVICE_DRAIN_MS
  if (spec === undefined || spec === '') return managed ? 4000 : 20000
  const ms = Number(spec)
  if (!Number.isInteger(ms) || ms < 0)
    throw new InternalError(
      'IGW_HOST_SETTING',
      `MICROSERVICE_DRAIN_MS '${spec}' is not a whole number of milliseconds (0 stops at once)`
    )
  return ms
}

/** `--describe DIR [SEQUENCE API_ID]`: the gateway's defaults a call without those headers gets. */
function printDescription(dir: string, sequence: string | undefined, apiId: string | undefined): void {
  const defaults: CallDefaults = {
    sequence: sequence !== undefined && isSequenceName(sequence) ? sequence : SHIPPED_DEFAULTS.sequence,
    apiId: apiId !== undefined && isApiMode(apiId) ? apiId : SHIPPED_DEFAULTS.apiId
  }
  const { config, def } = loadMicroservice(dir)
  const doc = describeMicroservice({
    name: config.name,
    version: config.version,
    definition: def,
    aliases: new Map(Object.entries(def.aliases ?? {})),
    defaults
  })
  process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`)
}

async function main(): Promise<void> {
  if (process.argv[2] === '--describe')
    return printDescription(resolve(process.argv[3] ?? '.'), process.argv[4], process.argv[5])
  // Before the method pool's workers or libuv's pool exist: only Node's and V8's helpers are lowered.
  yieldHelperThreads()
  const dir = resolve(process.argv[2] ?? '.')
  const drain = drainMs()
  const { config, def } = loadMicroservice(dir)
  const server = new MicroserviceServer(def, {
    dir,
    name: config.name,
    version: config.version,
    applicationType: config.type,
    settings: config.settings,
    privilegedNames: config.permissions.privilegedNames,
    // A shared secret for the internal protocol (instances reached over TCP from another host).
    secret:
      process.env.MICROSERVICE_SECRET === undefined || process.env.MICROSERVICE_SECRET === ''
        ? null
        : process.env.MICROSERVICE_SECRET
  })
  bindHost({
    setAvailable: (flag) => {
      server.available = flag
    },
    stats: server.stats
  })
  await server.warmUp()
  const target = listenTarget()
  const endpoint = await server.listen(target.endpoint, target.tls)
  const msg: HostMessage = { type: 'listening', name: config.name, endpoint }
  console.log(
    `microservice ${config.name} ${config.version} listening on ${target.tls !== null ? 'tls:' : ''}${endpointText(endpoint)} (pid ${process.pid}, old-space limit ${oldSpaceLimitMb()} MB)`
  )
  if (process.send !== undefined) process.send(msg)
  if (target.tls !== null) renewTlsFiles(server, config.name)

  let stopping = false
  const stop = (): void => {
    if (stopping) return
    stopping = true
    if (drain > 0)
      console.log(
        `microservice ${config.name} stopping: its gateways are told to send no more calls; draining for up to ${drain} ms (MICROSERVICE_DRAIN_MS${process.env.MICROSERVICE_DRAIN_MS === undefined || process.env.MICROSERVICE_DRAIN_MS === '' ? ', its default' : ''})`
      )
    server.close(drain).then(
      () => process.exit(0),
      () => process.exit(1)
    )
  }
  if (process.send === undefined || process.env.MICROSERVICE_MANAGED !== '1') {
    process.on('SIGTERM', stop)
    process.on('SIGINT', stop)
    process.on('disconnect', stop)
  } else {
    // Started by a platform's manager: a signal to the whole process group (systemd's stop, kill -- -PGID,
    // Ctrl+C) reaches this process too, but the gateway still has calls for it while it drains.
    // The platform says when to stop; if the platform dies instead, the channel closes.
    const later = (signal: string) => (): void =>
      console.log(`${signal}: left to the platform, which stops this instance once its gateway has drained`)
    process.on('SIGTERM', later('SIGTERM'))
    process.on('SIGINT', later('SIGINT'))
    // A reload of the platform's config (kill -HUP to its group) is the platform's, not this instance's end.
    process.on('SIGHUP', () => console.log('SIGHUP: the platform reads its config again; this instance goes on'))
    process.on('message', (m: PlatformMessage) => {
      if (m.type === 'stop') stop()
    })
    process.on('disconnect', stop)
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(`microservice failed to start: ${errorMessage(err)}`)
    process.exit(78)
  })
}

/**
 * The old-space limit as --max-old-space-size sets it, which `status` reports as the heap (V8's
 * heap_size_limit adds the young generation to it).
 */
function oldSpaceLimitMb(): number {
  const flag = process.execArgv.find((a) => a.startsWith('--max-old-space-size='))
  return flag === undefined ? Math.round(getHeapStatistics().heap_size_limit / 2 ** 20) : Number(flag.split('=')[1])
}
