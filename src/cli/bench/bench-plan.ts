// The plan of one `microservice bench` run, from its command line and what the platform says.
import { existsSync, readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import { createSecureContext } from 'node:tls'
import { parseArgs } from 'node:util'
import type { PlatformAbout } from '../../platform/control'
import { SEQUENCES, isSequenceName } from '../../common/contract/vocabulary'
import { EDGE_API_PREFIX } from '../../common/contract/http-names'
import { errorMessage } from '../../common/errors/internal'
import { connectionsText, type BenchResult } from './bench-result'
import { readBaseline } from './baseline'
import { reachableHost } from '../../platform/listeners/listen-check'
import { documentedSequences, SERIALIZED_EXAMPLE, SHIPPED_DEFAULTS } from '../../microservice/host/openapi'
import { BenchUsageError } from './usage-error'

export { BenchUsageError }

export const BENCH_USAGE = `usage: microservice bench <microservice/service/method> [options]

  -b, --body TEXT|@FILE    the request body (default: the method's example from its API description)
  -c, --connections LIST   concurrent connections, one run each: 1,16,64 (default 10)
  -d, --duration TIME      per concurrency: 10s, 500ms, 2m (default 10s)
  -n, --requests N         per concurrency: stop after N answers instead of after a duration
  -w, --warmup TIME        calls made and not counted before each run (default 2s; 0 for none)
  -R, --rate N             open loop: N requests a second in all, latency timed from when each was
                           due (a stall is not hidden by the sender waiting for it)
      --mode ROA|RMC       X-PLATFORM-API-ID (default: the gateway's)
      --sequence NAME      X-PLATFORM-Sequence-Name (default: the gateway's)
  -H, --header 'N: V'      another request header (repeatable)
      --content-type TYPE  default: the sequence's format, else from the body (< is XML)
      --url URL            the gateway, http:// or https:// (default: the running platform's, as its
                           control socket says, https:// when its listener has TLS)
      --ca FILE            https: the PEM CA certificates that verify the gateway's certificate
                           (default: Node's list of public CAs and NODE_EXTRA_CA_CERTS)
      --insecure           https: do not verify the certificate (the report says so)
      --servername NAME    https: the SNI name sent, and the name the certificate must have
                           (default: the URL's host when it is a name; none for an IP address)
      --cert FILE          https: a client certificate (PEM) for a listener or edge that asks for
      --key FILE           one, with its private key (both or neither)
      --edge               through the edge's ${EDGE_API_PREFIX} path instead of the gateway
      --timeout TIME       an answer slower than this is an error (default 10s)
      --rounds N           split each run into N rounds (default 1; 10 with --save or --baseline)
      --reference          also measure a bare reference server in alternating rounds
      --save FILE          write this run as a baseline (implies --reference)
      --baseline FILE      compare with a saved run; exit 1 when slower beyond --tolerance
      --tolerance PERCENT  default 15 (see the rounds' spread the result reports)
      --json FILE          the result as JSON (its schema: docs/bench-result.schema.json)
      --markdown FILE      the result as Markdown (also appended to $GITHUB_STEP_SUMMARY when set)
      --junit FILE         one JUnit test case per concurrency
      --html FILE          a page with the table and the latency distribution plotted
      --any-answer         do not require every answer to equal the first one
      --allow-errors       report error answers without failing the run
  -q, --quiet              no progress line (it is shown only on a terminal, never with CI set)

Exit: 0 passed; 1 errors, differing answers or a regression; 2 a usage mistake.`

/** Past this, a schedule of calls is not what the generator can keep (and an infinite one never ends). */
const MAX_RATE = 1_000_000

/** Headers that frame the request: the command writes them from the body and --content-type. */
const FRAMING = ['content-length', 'transfer-encoding', 'host', 'content-type', 'connection']

/** How the command speaks TLS to an https:// target. */
export interface BenchTls {
  /** The CAs that verify the gateway's certificate (null: Node's own list). */
  ca: Buffer | null
  caFile: string | null
  /** The certificate is not verified at all (--insecure). */
  insecure: boolean
  /** SNI, and the name the certificate is checked for (null: none sent, the address is checked). */
  servername: string | null
  /** The client certificate and its key (--cert, --key), for a listener that requires one. */
  client: { cert: Buffer; key: Buffer; certFile: string } | null
}

/** Parses a time as wrk and k6 users write it: a number followed by s, ms or m, or seconds alone. */
export function parseTime(text: string, what: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim())
  if (m === null) throw new BenchUsageError(`${what} '${text}' is not a time like 10s, 500ms or 2m`)
  const n = Number(m[1])
  return m[2] === 'ms' ? n : m[2] === 'm' ? n * 60000 : n * 1000
}

function positiveInt(text: string, what: string): number {
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1) throw new BenchUsageError(`${what} '${text}' is not a whole number above 0`)
  return n
}

export interface BenchPlan {
  route: string
  url: URL
  /** null: plain HTTP. */
  tls: BenchTls | null
  body: Buffer
  bodySource: BenchResult['target']['bodySource']
  contentType: string
  headers: Record<string, string>
  connections: number[]
  durationMs: number | null
  requests: number | null
  warmupMs: number
  rate: number | null
  timeoutMs: number
  rounds: number
  reference: boolean
  checkAnswers: boolean
  allowErrors: boolean
  tolerancePercent: number
  /** The saved run to compare with, read and checked before any load is sent. */
  baseline: { file: string; result: BenchResult } | null
  outputs: { json?: string; markdown?: string; junit?: string; html?: string; save?: string }
  progress: boolean
  /** The platform's processes whose CPU per call is measured, looked up again each round (null: not here). */
  processes: (() => Promise<number[] | null>) | null
}

/** The plan from the command line; the running platform supplies what it does not name. */
export async function planBench(args: string[], sources: PlatformSources): Promise<BenchPlan> {
  let parsed
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        body: { type: 'string', short: 'b' },
        connections: { type: 'string', short: 'c', default: '10' },
        duration: { type: 'string', short: 'd' },
        requests: { type: 'string', short: 'n' },
        warmup: { type: 'string', short: 'w', default: '2s' },
        rate: { type: 'string', short: 'R' },
        mode: { type: 'string' },
        sequence: { type: 'string' },
        header: { type: 'string', short: 'H', multiple: true, default: [] },
        'content-type': { type: 'string' },
        url: { type: 'string' },
        ca: { type: 'string' },
        insecure: { type: 'boolean', default: false },
        servername: { type: 'string' },
        cert: { type: 'string' },
        key: { type: 'string' },
        edge: { type: 'boolean', default: false },
        timeout: { type: 'string', default: '10s' },
        rounds: { type: 'string' },
        reference: { type: 'boolean', default: false },
        save: { type: 'string' },
        baseline: { type: 'string' },
        tolerance: { type: 'string', default: '15' },
        json: { type: 'string' },
        markdown: { type: 'string' },
        junit: { type: 'string' },
        html: { type: 'string' },
        'any-answer': { type: 'boolean', default: false },
        'allow-errors': { type: 'boolean', default: false },
        quiet: { type: 'boolean', short: 'q', default: false }
      }
    })
  } catch (err) {
    // Node's first sentence says what is wrong; the rest is advice on '--' that does not fit here.
    throw new BenchUsageError(errorMessage(err).split(/\.\s/)[0]!)
  }
  const { values: v, positionals } = parsed
  if (positionals.length !== 1) throw new BenchUsageError('name one route: microservice/service/method')
  const route = positionals[0]!.replace(/^\/+|\/+$/g, '')
  if (!/^[^/\s]+\/[^/\s]+\/[^/\s]+$/.test(route))
    throw new BenchUsageError(
      `'${positionals[0]}' is not a route: microservice/service/method, e.g. example/calculator/multiply`
    )
  if (v.duration !== undefined && v.requests !== undefined)
    throw new BenchUsageError('--duration and --requests both say when to stop: give one')
  const connections = v.connections.split(',').map((c) => positiveInt(c, '--connections'))
  const requests = v.requests === undefined ? null : positiveInt(v.requests, '--requests')
  const durationMs = requests !== null ? null : parseTime(v.duration ?? '10s', '--duration')
  if (durationMs !== null && durationMs <= 0) throw new BenchUsageError('--duration must be above 0')
  const rate = v.rate === undefined ? null : Number(v.rate)
  if (rate !== null && !(rate > 0 && rate <= MAX_RATE))
    throw new BenchUsageError(`--rate '${v.rate}' is not a number of requests a second from above 0 to ${MAX_RATE}`)
  if (rate !== null && requests !== null)
    throw new BenchUsageError('--rate runs for a --duration, not a number of --requests')
  const comparing = v.save !== undefined || v.baseline !== undefined
  const rounds = v.rounds === undefined ? (comparing ? 10 : 1) : positiveInt(v.rounds, '--rounds')
  if (requests !== null && rounds > 1)
    throw new BenchUsageError('rounds split a --duration; use --duration with --save, --baseline or --rounds')
  const tolerancePercent = Number(v.tolerance)
  if (!(tolerancePercent >= 0 && tolerancePercent < 100))
    throw new BenchUsageError(`--tolerance '${v.tolerance}' is not a percentage from 0 to 99`)
  if (v.mode !== undefined && v.mode !== 'ROA' && v.mode !== 'RMC')
    throw new BenchUsageError(`--mode '${v.mode}' is neither ROA nor RMC`)
  if (v.sequence !== undefined && !isSequenceName(v.sequence))
    throw new BenchUsageError(`--sequence '${v.sequence}' is not one of ${Object.keys(SEQUENCES).join(', ')}`)

  const headers: Record<string, string> = {}
  if (v.mode !== undefined) headers['X-PLATFORM-API-ID'] = v.mode
  if (v.sequence !== undefined) headers['X-PLATFORM-Sequence-Name'] = v.sequence
  for (const h of v.header) {
    const colon = h.indexOf(':')
    if (colon <= 0) throw new BenchUsageError(`--header '${h}' is not 'Name: value'`)
    const name = h.slice(0, colon).trim()
    if (FRAMING.includes(name.toLowerCase()))
      throw new BenchUsageError(`--header ${name}: the command writes it itself (--content-type for the type)`)
    headers[name] = h.slice(colon + 1).trim()
  }
  const timeoutMs = parseTime(v.timeout, '--timeout')
  if (timeoutMs <= 0) throw new BenchUsageError('--timeout must be above 0')
  for (const [option, file] of Object.entries({
    json: v.json,
    markdown: v.markdown,
    junit: v.junit,
    html: v.html,
    save: v.save
  }))
    if (file !== undefined && !existsSync(dirname(resolve(file))))
      throw new BenchUsageError(`--${option} ${file}: its directory does not exist`, false)

  // The platform's own word on where it listens (an override at its start is not in the config file).
  const about = v.url === undefined ? await sources.about() : null
  const url = baseUrl(v.url, v.edge, about, route)
  const tls = tlsOf(url, { ca: v.ca, insecure: v.insecure, servername: v.servername, cert: v.cert, key: v.key })
  const sequenceFormat = v.sequence !== undefined && isSequenceName(v.sequence) ? SEQUENCES[v.sequence].format : null
  let body: Buffer
  let bodySource: BenchPlan['bodySource']
  let exampleFormat: 'json' | 'xml' | null = null
  if (v.body !== undefined && v.body.startsWith('@')) {
    const file = v.body.slice(1)
    if (!existsSync(file)) throw new BenchUsageError(`--body ${v.body}: no file ${file}`)
    body = readFileSync(file)
    bodySource = 'file'
  } else if (v.body !== undefined) {
    body = Buffer.from(v.body)
    bodySource = 'argument'
  } else {
    if (v.mode === 'RMC')
      throw new BenchUsageError('an RMC call needs --body: the API description has examples of ROA methods only')
    const example = await exampleBody(route, v.sequence ?? null, sources, about)
    body = Buffer.from(example.text)
    bodySource = 'example'
    exampleFormat = example.format
    // The examples are of ROA calls, whatever a platform does with a call that names no mode.
    headers['X-PLATFORM-API-ID'] ??= 'ROA'
  }
  const format =
    sequenceFormat ?? exampleFormat ?? (body.toString('latin1').trimStart().startsWith('<') ? 'xml' : 'json')
  const contentType = v['content-type'] ?? (format === 'xml' ? 'application/xml' : 'application/json')
  const measuresCpu = about !== null && existsSync('/proc/self/task')
  const baseline = v.baseline === undefined ? null : { file: v.baseline, result: baselineFor(v.baseline, connections) }
  if (baseline !== null)
    sameCall(baseline.file, baseline.result, { route, url, contentType, headers, bodyBytes: body.length, rate })
  if (comparing && rate !== null && !measuresCpu)
    throw new BenchUsageError(
      '--rate fixes the req/s of both runs, so without the CPU per call (a platform on this machine) there is nothing to compare',
      false
    )
  return {
    route,
    url,
    tls,
    body,
    bodySource,
    contentType,
    headers,
    connections,
    durationMs,
    requests,
    warmupMs: parseTime(v.warmup, '--warmup'),
    rate,
    timeoutMs,
    rounds,
    reference: v.reference || comparing,
    checkAnswers: !v['any-answer'],
    allowErrors: v['allow-errors'],
    tolerancePercent,
    baseline,
    outputs: { json: v.json, markdown: v.markdown, junit: v.junit, html: v.html, save: v.save },
    progress: !v.quiet && process.stderr.isTTY === true && process.env.CI === undefined,
    // Measured only when the calls go to this platform (not to a --url elsewhere) and /proc is there.
    processes: measuresCpu ? () => processes(about, route, sources) : null
  }
}

/** A baseline of another call compares nothing: the route, body, type, headers and rate must be the same. */
function sameCall(
  file: string,
  base: BenchResult,
  now: {
    route: string
    url: URL
    contentType: string
    headers: Record<string, string>
    bodyBytes: number
    rate: number | null
  }
): void {
  const differs: string[] = []
  if (base.target.route !== now.route) differs.push(`route ${base.target.route}, not ${now.route}`)
  // TLS costs the gateway CPU on every call: a run over it compares with runs over it only.
  const baseScheme = base.target.url.startsWith('https:') ? 'https:' : 'http:'
  if (baseScheme !== now.url.protocol) differs.push(`over ${baseScheme}//, not ${now.url.protocol}//`)
  if (base.target.contentType !== now.contentType) differs.push(`Content-Type ${base.target.contentType}`)
  if (base.target.bodyBytes !== now.bodyBytes)
    differs.push(`a body of ${base.target.bodyBytes} bytes, not ${now.bodyBytes}`)
  if (JSON.stringify(base.target.headers) !== JSON.stringify(now.headers))
    differs.push(`headers ${JSON.stringify(base.target.headers)}`)
  if (base.settings.rate !== now.rate) differs.push(`--rate ${base.settings.rate ?? 'none'}`)
  if (differs.length > 0)
    throw new BenchUsageError(`--baseline ${file} measured another call: ${differs.join('; ')}`, false)
}

/** The saved run, which must have a reference-measured run at every concurrency asked for. */
function baselineFor(file: string, connections: readonly number[]): BenchResult {
  const result = readBaseline(file)
  for (const c of connections)
    if (!result.runs.some((r) => r.connections === c && r.reference !== null))
      throw new BenchUsageError(
        `--baseline ${file} has no run at ${connectionsText(c)} with a reference: save one with the same --connections`,
        false
      )
  return result
}

function baseUrl(given: string | undefined, edge: boolean, about: PlatformAbout | null, route: string): URL {
  if (given !== undefined) {
    let base: URL
    try {
      base = new URL(given)
    } catch {
      throw new BenchUsageError(`--url '${given}' is not a URL like http://127.0.0.1:8082`)
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:')
      throw new BenchUsageError(`--url '${given}': http:// or https:// is measured, not ${base.protocol}//`)
    const prefix = base.pathname.replace(/\/+$/, '')
    return new URL(`${prefix}${edge ? EDGE_API_PREFIX : ''}/${route}`, base)
  }
  if (about === null)
    throw new BenchUsageError('no platform is running here (npm start starts one), or give --url', false)
  if (about.gateway.port === 0)
    throw new BenchUsageError(
      'the platform is still starting (its gateway does not listen yet): try again in a moment',
      false
    )
  if (edge) {
    if (about.edge === null)
      throw new BenchUsageError('--edge: this platform has no edge (EDGE.enabled is false)', false)
    return new URL(
      `${schemeOf(about.edge)}://${reachableHost(about.edge.host)}:${about.edge.port}${EDGE_API_PREFIX}/${route}`
    )
  }
  return new URL(`${schemeOf(about.gateway)}://${reachableHost(about.gateway.host)}:${about.gateway.port}/${route}`)
}

/** What a client types before a listener's address, as the platform says it. */
function schemeOf(listener: { tls?: boolean }): 'http' | 'https' {
  return listener.tls === true ? 'https' : 'http'
}

/** The TLS options of an https:// target; null for http://, where none of them means anything. */
function tlsOf(
  url: URL,
  o: { ca?: string; insecure: boolean; servername?: string; cert?: string; key?: string }
): BenchTls | null {
  const given = [
    o.ca !== undefined ? '--ca' : '',
    o.insecure ? '--insecure' : '',
    o.servername !== undefined ? '--servername' : '',
    o.cert !== undefined ? '--cert' : '',
    o.key !== undefined ? '--key' : ''
  ]
  if (url.protocol === 'http:') {
    const named = given.filter((x) => x !== '')
    if (named.length > 0)
      throw new BenchUsageError(`${named.join(', ')}: for an https:// gateway, and ${url.origin} is plain HTTP`)
    return null
  }
  if (o.ca !== undefined && o.insecure)
    throw new BenchUsageError('--ca verifies the certificate and --insecure does not: give one')
  let ca: Buffer | null = null
  if (o.ca !== undefined) {
    if (!existsSync(o.ca)) throw new BenchUsageError(`--ca ${o.ca}: no such file`, false)
    ca = readFileSync(o.ca)
    try {
      if (!ca.toString('latin1').includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate in it')
      createSecureContext({ ca })
    } catch (err) {
      throw new BenchUsageError(`--ca ${o.ca} is not a PEM CA bundle: ${errorMessage(err)}`, false)
    }
  }
  if (o.servername !== undefined && (o.servername === '' || isIP(o.servername) !== 0))
    throw new BenchUsageError(`--servername '${o.servername}' is not a DNS name (SNI names no IP address)`)
  // A host in brackets is an IPv6 address; SNI carries names only (RFC 6066).
  const host = url.hostname.replace(/^\[|\]$/g, '')
  return {
    ca,
    caFile: o.ca ?? null,
    insecure: o.insecure,
    servername: o.servername ?? (isIP(host) === 0 ? host : null),
    client: clientCertificate(o.cert, o.key)
  }
}

/** --cert and --key read and checked as a pair: a key that is not the certificate's fails here, not mid-run. */
function clientCertificate(certFile?: string, keyFile?: string): BenchTls['client'] {
  if (certFile === undefined && keyFile === undefined) return null
  if (certFile === undefined || keyFile === undefined)
    throw new BenchUsageError(
      `${certFile === undefined ? '--key' : '--cert'} needs ${certFile === undefined ? '--cert' : '--key'} too: a client certificate and its key`
    )
  for (const [option, file] of [
    ['--cert', certFile],
    ['--key', keyFile]
  ] as const)
    if (!existsSync(file)) throw new BenchUsageError(`${option} ${file}: no such file`, false)
  const cert = readFileSync(certFile)
  const key = readFileSync(keyFile)
  try {
    createSecureContext({ cert, key })
  } catch (err) {
    throw new BenchUsageError(`--cert ${certFile} with --key ${keyFile}: ${errorMessage(err)}`, false)
  }
  return { cert, key, certFile }
}

/** The platform's process and the microservice's instances here, whose CPU per call is measured. */
async function processes(about: PlatformAbout, route: string, sources: PlatformSources): Promise<number[] | null> {
  const pids = await sources.instancePids(route.split('/')[0]!).catch(() => [])
  return pids.length === 0 ? null : [about.pid, ...pids]
}

interface Description {
  info?: { 'x-platform-defaults'?: { sequence?: string } }
  paths?: Record<
    string,
    { post?: { requestBody?: { content?: Record<string, { example?: unknown; [SERIALIZED_EXAMPLE]?: unknown }> } } }
  >
}

/** What the running platform tells (through its control socket). */
export interface PlatformSources {
  /** Where it listens and its process; null when no platform runs here. */
  about(): Promise<PlatformAbout | null>
  /** The deployed package's directory, where its API description is. */
  packageDir(microservice: string): Promise<string | null>
  /** The processes of its instances running here. */
  instancePids(microservice: string): Promise<number[]>
}

/**
 * The method's request example, from the deployed package's description or the edge's: the one in
 * the format of the platform's default sequence (the description records it), or of `sequence`
 * when that is a sequence the description shows.
 */
async function exampleBody(
  route: string,
  sequence: string | null,
  sources: PlatformSources,
  about: PlatformAbout | null
): Promise<{ text: string; format: 'json' | 'xml' }> {
  const [microservice, service, method] = route.split('/') as [string, string, string]
  let doc: Description | null = null
  const dir = await sources.packageDir(microservice).catch(() => null)
  const file = dir === null ? null : join(dir, 'openapi.json')
  if (file !== null && existsSync(file)) doc = JSON.parse(readFileSync(file, 'utf8')) as Description
  else if (about?.edge != null) {
    const edgeBase = `http://${reachableHost(about.edge.host)}:${about.edge.port}`
    const r = await fetch(`${edgeBase}/_swagger/${encodeURIComponent(microservice)}/openapi.json`).catch(() => null)
    if (r?.ok === true) doc = (await r.json()) as Description
  }
  if (doc === null)
    throw new BenchUsageError(
      `no API description of '${microservice}' was found to take an example from: give --body`,
      false
    )
  const made = doc.info?.['x-platform-defaults']?.sequence
  const defaultSequence = made !== undefined && isSequenceName(made) ? made : SHIPPED_DEFAULTS.sequence
  const shown = documentedSequences(defaultSequence)
  let format: 'json' | 'xml'
  if (sequence === null) format = SEQUENCES[defaultSequence].format
  else if (shown.json === sequence) format = 'json'
  else if (shown.xml === sequence) format = 'xml'
  else
    throw new BenchUsageError(
      `the API description of '${microservice}' shows its examples as ${shown.json} and ${shown.xml} write them, not as ${sequence}: give --body`,
      false
    )
  const type = format === 'xml' ? 'application/xml' : 'application/json'
  const media = doc.paths?.[`/${service}/${method}`]?.post?.requestBody?.content?.[type]
  // An XML example is a value; its text as the serializer writes it is beside it.
  const example = format === 'xml' ? media?.[SERIALIZED_EXAMPLE] : media?.example
  if (example === undefined)
    throw new BenchUsageError(
      `the API description of '${microservice}' has no ${type} example for ${service}/${method} (only documented ROA methods have one): give --body`,
      false
    )
  return { text: typeof example === 'string' ? example : JSON.stringify(example), format }
}
