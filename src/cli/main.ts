// The control command: `microservice pack|upload|list|status|stop|start|remove|logs`.
// It finds the platform through the same config file (PLATFORM_CONFIG, default config/platform.json).
import { request } from 'node:http'
import { execFileSync, spawn } from 'node:child_process'
import { tmpdir } from 'node:os'
import { HOST_FILE, hostEnv } from '../microservice/host/host-env'
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, statSync, watch } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { loadConfig, type PlatformConfig } from '../gateway/config/config'
import { readMicroserviceConfig, type MicroserviceConfig } from '../microservice/host/package-config'
import { versionRefusal } from '../platform/package/upgrade-check'
import { unpackZip, zipDirectory, zipEntryNames, type UnpackLimits } from '../platform/package/zip'
import { generateDescription, DESCRIPTION_FILE } from '../platform/package/descriptions'
import type { UploadResult } from '../platform/package/deployer'
import type { MicroserviceStatus } from '../platform/manager'
import { nginxEdgeConfig, parseNode } from '../platform/manifests/nginx'
import { DEFAULT_KUBE_OPTIONS, kubernetesManifests } from '../platform/manifests/kubernetes'
import { parseArgs } from 'node:util'
import { productVersion } from '../common/contract/product-version'
import { InternalError, errorMessage, type InternalCode } from '../common/errors/internal'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { benchCommand, BENCH_USAGE } from './bench/bench-command'
import type { PlatformAbout } from '../platform/control'

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

/** What a command reports on one line and exits 1 for; IGW_CLI_USAGE unless another code says more. */
class CliError extends InternalError {
  constructor(message: string, code: InternalCode = 'IGW_CLI_USAGE') {
    super(code, message)
  }
}

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

function control(config: PlatformConfig, method: string, path: string): Promise<{ status: number; body: unknown }> {
  const socketPath = config.platform.controlSocket
  if (!existsSync(socketPath))
    throw new CliError(
      `the platform is not running (no control socket at ${socketPath}); start it with npm start`,
      'IGW_CLI_PLATFORM'
    )
  return new Promise((resolvePromise, reject) => {
    const req = request({ socketPath, path, method }, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => {
        text += d.toString()
      })
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }))
    })
    req.on('error', (err) =>
      reject(new CliError(`cannot reach the platform at ${socketPath}: ${err.message}`, 'IGW_CLI_PLATFORM'))
    )
    req.end()
  })
}

async function call(config: PlatformConfig, method: string, path: string): Promise<unknown> {
  const r = await control(config, method, path)
  if (r.status >= 400) throw new CliError((r.body as { error: string }).error, 'IGW_CLI_REFUSED')
  return r.body
}

function statusText(s: MicroserviceStatus): string {
  const versions =
    s.versions.length > 1 ? ` (instances of ${s.versions.length} versions: ${s.versions.join(', ')})` : ''
  // A nativeApp, the default, is what the gateway calls; a servletApp is named as such (--json has both).
  const type = s.type === 'servletApp' ? ' (servletApp: runs, not exposed by the gateway)' : ''
  const lines = [
    `${s.name} ${s.version}${type}: ${s.desired === 'stopped' ? 'stopped' : s.unavailable === null ? 'available' : `unavailable (${s.unavailable})`}, ${s.inflight} calls in flight${versions}`
  ]
  for (const i of s.instances) {
    if (i.remote) {
      lines.push(
        `  ${i.id}: remote, ${i.state}${i.version !== null ? `, version ${i.version}` : ''}${i.message !== '' ? ` - ${i.message}` : ''}`
      )
      continue
    }
    lines.push(
      `  ${i.id}: ${i.state}${i.pid !== null ? `, pid ${i.pid}` : ''}${i.port > 0 ? `, port ${i.port}` : ''}, heap ${i.heapMb} MB, ${i.restarts} restarts (${i.memoryRestarts} for memory)${i.message !== '' ? ` - ${i.message}` : ''}`
    )
  }
  return lines.join('\n')
}

async function pack(dir: string, out: string | undefined): Promise<string> {
  const abs = resolve(dir)
  const config = readMicroserviceConfig(abs)
  if (basename(abs) !== config.name)
    throw new CliError(
      `the directory is named '${basename(abs)}' but microservice.json names '${config.name}'; a microservice is a directory named after it`,
      'IGW_PACKAGE'
    )
  if (!existsSync(join(abs, config.entry)))
    throw new CliError(`${config.entry}, the entry module named in microservice.json, is not in ${dir}`, 'IGW_PACKAGE')
  // Beside the package directory unless told: not wherever the command happens to run.
  const zip = resolve(out ?? join(dirname(abs), `${config.name}-${config.version}.zip`))
  // The API description travels in the package (docs/contract.md: placed in the microservice directory).
  const description = await generateDescription(abs).catch((err: unknown) => {
    throw new CliError(
      `cannot load the microservice to describe its API: ${errorMessage(err).split('\n').slice(-3).join(' ')}`,
      'IGW_MICROSERVICE_LOAD'
    )
  })
  const files = await zipDirectory(abs, config.name, zip, new Map([[DESCRIPTION_FILE, description]]))
  const operations = Object.keys((JSON.parse(description) as { paths: object }).paths).length
  return `packed ${config.name} ${config.version} (${files} files, ${operations} documented ROA method${operations === 1 ? '' : 's'}) into ${zip}`
}

async function upload(config: PlatformConfig, file: string, force: boolean, timeoutMs = 120000): Promise<string> {
  if (!existsSync(file) || !statSync(file).isFile()) throw new CliError(`${file} is not a file`)
  const dir = config.platform.uploadDirectory
  if (!existsSync(dir))
    throw new CliError(
      `the upload directory ${dir} does not exist; is the platform set up (npm start)?`,
      'IGW_CLI_PLATFORM'
    )
  if (!force) {
    const incoming = await packageConfigOf(file, config.platform.unpack)
    const refusal =
      incoming === null
        ? null
        : versionRefusal(incoming.name, incoming.version, await runningVersion(config, incoming.name))
    if (refusal !== null) throw new CliError(refusal, 'IGW_CLI_REFUSED')
  }
  const name = basename(file).endsWith('.zip') ? basename(file) : `${basename(file)}.zip`
  const result = join(dir, 'results', `${name}.json`)
  rmSync(result, { force: true })
  // Copied under a hidden name and renamed: the platform only ever sees a complete file.
  const part = join(dir, `.${name}.part`)
  copyFileSync(file, part)
  renameSync(part, join(dir, name))
  const deadline = Date.now() + timeoutMs
  while (!existsSync(result)) {
    if (Date.now() > deadline)
      throw new CliError(
        `no verdict on ${name} within ${timeoutMs / 1000} s; is the platform running?`,
        'IGW_CLI_PLATFORM'
      )
    await new Promise((r) => setTimeout(r, 100))
  }
  const r = JSON.parse(readFileSync(result, 'utf8')) as UploadResult
  if (!r.ok) throw new CliError(r.message, 'IGW_CLI_REFUSED')
  return r.message
}

/**
 * `microservice dev DIR`: packs and deploys the directory to the local platform, then again on every
 * change under it (a burst of saves is one deploy), printing each verdict; a version that fails to
 * load is refused with its place while the last good one keeps answering. Until Ctrl+C.
 */
async function dev(config: PlatformConfig, dir: string): Promise<number> {
  const abs = resolve(dir)
  // Throws now (no platform, no such directory) rather than watching for nothing.
  await control(config, 'GET', '/microservices')
  readMicroserviceConfig(abs)
  const work = mkdtempSync(join(tmpdir(), 'microservice-dev-'))
  const zip = join(work, `${basename(abs)}.zip`)
  let round = Promise.resolve()
  let busy = false
  const deploy = (): void => {
    round = round.then(async () => {
      busy = true
      const at = new Date().toTimeString().slice(0, 8)
      try {
        await pack(abs, zip)
        console.log(`${at} ${await upload(config, zip, true)}`)
      } catch (err) {
        console.log(`${at} not deployed: ${errorMessage(err)}`)
      } finally {
        busy = false
      }
    })
  }
  try {
    deploy()
    let timer: NodeJS.Timeout | undefined
    const watcher = watch(abs, { recursive: true }, (_event, file) => {
      if (file !== null && /^(node_modules|\.git)([/\\]|$)/.test(file)) return
      clearTimeout(timer)
      timer = setTimeout(deploy, 200)
    })
    console.log(`watching ${abs}: every change is packed and deployed to the local platform; Ctrl+C stops`)
    await new Promise<void>((done) => {
      watcher.on('error', (err) => {
        console.log(`cannot watch ${abs} any more: ${err.message}`)
        done()
      })
      for (const signal of ['SIGINT', 'SIGTERM'] as const)
        process.once(signal, () => {
          if (busy) console.log('finishing the deploy in progress (Ctrl+C again stops at once)…')
          done()
        })
    })
    watcher.close()
    clearTimeout(timer)
    await round
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  return 0
}

/** `microservice edge nginx-config`: writes (or prints) the nginx edge for the given platform nodes. */
function edgeCommand(config: PlatformConfig, args: string[]): number {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      node: { type: 'string', multiple: true },
      listen: { type: 'string', default: '8000' },
      out: { type: 'string' },
      standalone: { type: 'string' },
      'max-header-bytes': { type: 'string', default: '8192' }
    }
  })
  if (positionals[0] !== 'nginx-config')
    throw new CliError('usage: microservice edge nginx-config [--node host:port[:edgePort]]...')
  const maxHeaderBytes = Number(values['max-header-bytes'])
  if (!Number.isInteger(maxHeaderBytes) || maxHeaderBytes < 1024)
    throw new CliError('--max-header-bytes: a whole number of bytes, at least 1024')
  const nodes = (values.node ?? [`127.0.0.1:${config.gateway.port}:${config.edge.port}`]).map(parseNode)
  const text = nginxEdgeConfig({
    nodes,
    listen: values.listen,
    maxBodyBytes: config.gateway.maxBodyBytes,
    executingTimeoutMs: config.gateway.executingTimeoutMs,
    maxHeaderBytes,
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

/** What a node's admin listener answers about one microservice (GET /status). */
interface NodeView {
  version: string | null
  versions: string[]
  unavailable: string | null
}

async function nodeView(node: string, name: string): Promise<NodeView> {
  const r = await fetch(`${node}/status`, { signal: AbortSignal.timeout(5000) })
  const body = (await r.json()) as { microservices: MicroserviceStatus[] }
  const microservice = body.microservices.find((m) => m.name === name)
  return microservice === undefined
    ? { version: null, versions: [], unavailable: 'not deployed' }
    : { version: microservice.version, versions: microservice.versions, unavailable: microservice.unavailable }
}

/**
 * `upload ZIP --node URL...` and `rollback NAME --node URL...`: one node at a time, each gated on
 * serving the version alone (its status: available, every connected instance on it) before the
 * next; the first failure stops the rollout, and every node's version is printed, so nodes are never
 * left on different versions without saying so.
 */
async function acrossNodes(
  command: 'upload' | 'rollback',
  args: string[],
  force: boolean,
  limits: UnpackLimits
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      node: { type: 'string', multiple: true, default: [] },
      'token-env': { type: 'string', default: 'IGW_DEPLOY_TOKEN' },
      'timeout-s': { type: 'string', default: '120' }
    }
  })
  const target = positionals[0]
  if (target === undefined)
    throw new CliError(`usage: microservice ${command} <${command === 'upload' ? 'zip_file' : 'name'}> --node URL...`)
  const token = process.env[values['token-env']] ?? ''
  if (token === '')
    throw new CliError(
      `--token-env ${values['token-env']}: the environment variable holds no token`,
      'IGW_SECRET_MISSING'
    )
  const nodes = values.node.map((n) => n.replace(/\/+$/, ''))
  const timeoutMs = Number(values['timeout-s']) * 1000
  let name: string
  let zip: Buffer | null = null
  if (command === 'upload') {
    if (!existsSync(target) || !statSync(target).isFile()) throw new CliError(`${target} is not a file`)
    zip = readFileSync(target)
    name = await zipMicroserviceName(target)
    // Checked on every node before any is touched. A rollout that stopped partway is taken up again
    // (some nodes on this version already): refused only when a node runs a newer one, or all this one.
    const version = force ? undefined : (await packageConfigOf(target, limits))?.version
    if (version !== undefined) {
      // A node that does not answer is left to the rollout, which stops there and says so.
      const running = await Promise.all(
        nodes.map((node) =>
          nodeView(node, name).then(
            (v) => v.version,
            () => null
          )
        )
      )
      const refusals = nodes.map((node, k) => versionRefusal(name, version, running[k] ?? null, ` on ${node}`))
      const newer = refusals.find((r, k) => r !== null && running[k] !== version)
      if (newer != null) throw new CliError(newer, 'IGW_CLI_REFUSED')
      if (refusals.every((r) => r !== null)) throw new CliError(refusals[0]!, 'IGW_CLI_REFUSED')
    }
  } else name = target
  const headers = { Authorization: `Bearer ${token}` }
  // A microservice new to some nodes is announced there first: until their turn comes, their calls
  // for it wait instead of answering 404 while a node before them already serves it.
  const announced =
    command === 'upload' ? await announce(nodes, name, headers, Math.min(3600, (timeoutMs / 1000) * nodes.length)) : []
  for (const [k, node] of nodes.entries()) {
    try {
      const r = await fetch(
        command === 'upload' ? `${node}/deploy` : `${node}/microservices/${encodeURIComponent(name)}/rollback`,
        {
          method: 'POST',
          headers:
            zip === null
              ? headers
              : { ...headers, 'X-Package-Name': basename(target), 'Content-Type': 'application/zip' },
          body: zip === null ? null : new Uint8Array(zip),
          signal: AbortSignal.timeout(timeoutMs)
        }
      )
      const verdict = (await r.json()) as { ok?: boolean; message?: string; error?: string; version?: string }
      if (!r.ok || verdict.ok !== true)
        throw new CliError(verdict.message ?? verdict.error ?? `HTTP ${r.status}`, 'IGW_CLI_REFUSED')
      const version = verdict.version!
      // The gate: this node serves the new version, and only it, before the next node is touched.
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const v = await nodeView(node, name)
        if (v.unavailable === null && v.versions.length === 1 && v.versions[0] === version) break
        if (Date.now() > deadline)
          throw new CliError(
            `deployed, but not serving ${version} alone within ${timeoutMs / 1000} s (${JSON.stringify(v)})`,
            'IGW_CLI_PLATFORM'
          )
        await new Promise((r2) => setTimeout(r2, 200))
      }
      console.log(`${node}: ${verdict.message}; serving ${name} ${version}`)
    } catch (err) {
      console.error(`microservice: ${node}: ${errorMessage(err)}`)
      // The nodes after this one will not get it now: their calls for it get their 404 again.
      await announce(
        nodes.slice(k + 1).filter((n) => announced.includes(n)),
        name,
        headers,
        0
      )
      console.error(`stopped after ${k} of ${nodes.length} node(s); where ${name} stands now:`)
      for (const n of nodes) {
        const v = await nodeView(n, name).catch((e: unknown) => ({ version: `unknown (${errorMessage(e)})` }))
        console.error(`  ${n}: ${v.version ?? 'not deployed'}`)
      }
      return 1
    }
  }
  return 0
}

/**
 * Tells the nodes where `name` is not deployed that it is coming (POST …/expect?seconds=N; 0
 * withdraws it); returns the nodes told. A node that cannot be reached is left to fail at its turn.
 */
async function announce(
  nodes: string[],
  name: string,
  headers: Record<string, string>,
  seconds: number
): Promise<string[]> {
  const told: string[] = []
  for (const node of nodes) {
    try {
      if (seconds > 0 && (await nodeView(node, name)).version !== null) continue
      const r = await fetch(`${node}/microservices/${encodeURIComponent(name)}/expect?seconds=${seconds}`, {
        method: 'POST',
        headers,
        signal: AbortSignal.timeout(5000)
      })
      if (r.ok) told.push(node)
    } catch {
      // unreachable: its deploy reports it
    }
  }
  return told
}

/**
 * The package's microservice.json, unpacked with the platform's checks; null when it has none that
 * reads: the platform's verdict then says why, in the words it uses for every upload.
 */
async function packageConfigOf(zip: string, limits: UnpackLimits): Promise<MicroserviceConfig | null> {
  const dir = mkdtempSync(join(tmpdir(), 'microservice-package-'))
  try {
    return readMicroserviceConfig(join(dir, 'package', await unpackZip(resolve(zip), join(dir, 'package'), limits)))
  } catch {
    return null
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The version the local platform runs of `name`; null when none, or when no platform answers. */
async function runningVersion(config: PlatformConfig, name: string): Promise<string | null> {
  try {
    const r = await control(config, 'GET', `/microservices/${encodeURIComponent(name)}`)
    return r.status === 200 ? (r.body as MicroserviceStatus).version : null
  } catch {
    return null
  }
}

/** The microservice a package holds: its top-level directory. */
async function zipMicroserviceName(file: string): Promise<string> {
  const names = await zipEntryNames(file)
  const top = new Set(names.map((n) => n.split('/')[0]).filter((n) => n !== undefined && n !== ''))
  if (top.size !== 1)
    throw new CliError(`${file} is not a microservice package: one top-level directory expected`, 'IGW_PACKAGE')
  return [...top][0]!
}

/**
 * `microservice image ZIP`: the package, checked and unpacked as an upload is, copied into an image
 * built on the platform's, whose entry point is `microservice host` for it (the Deployment's pods).
 */
async function imageCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { base: { type: 'string', default: DEFAULT_KUBE_OPTIONS.image }, tag: { type: 'string' } }
  })
  const zip = positionals[0]
  if (zip === undefined || positionals.length > 1)
    throw new CliError('usage: microservice image <zip_file> [--base IMAGE] [--tag NAME]')
  const context = mkdtempSync(join(tmpdir(), 'microservice-image-'))
  try {
    const top = await unpackZip(resolve(zip), join(context, 'package'))
    const config = readMicroserviceConfig(join(context, 'package', top))
    if (config.name !== top)
      throw new CliError(
        `the package's directory is '${top}' but microservice.json names '${config.name}'`,
        'IGW_PACKAGE'
      )
    const tag = values.tag ?? `localhost/${config.name}:${config.version}`
    const dir = `/app/microservices/${config.name}`
    writeFileSync(
      join(context, 'Containerfile'),
      [
        `FROM ${values.base}`,
        `COPY package/${config.name} ${dir}`,
        `LABEL org.opencontainers.image.title="${config.name}" org.opencontainers.image.version="${config.version}" invocation-gateway.microservice="${config.name}"`,
        'EXPOSE 7000',
        // The platform's check asks an admin port a pod does not have; this one asks whether the
        // internal port takes connections (a pod's probes in the manifests do the same).
        `HEALTHCHECK --interval=10s --timeout=3s --start-period=30s CMD ["node", "-e", "require('net').connect(7000, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(1))"]`,
        `ENTRYPOINT ["node", "/app/bin/microservice", "host", "${dir}"]`,
        'CMD ["--listen", "tcp:0.0.0.0:7000", "--secret-env", "MICROSERVICE_SECRET"]',
        ''
      ].join('\n')
    )
    const wrapper = join(__dirname, '..', '..', 'scripts', 'image', 'podman.sh')
    const [bin, pre] = existsSync(wrapper) ? ['bash', [wrapper]] : ['podman', []]
    // The docker format: OCI image configs have no HEALTHCHECK, and podman drops it from them.
    execFileSync(bin, [...pre, 'build', '--format', 'docker', '--network', 'host', '-t', tag, context], {
      stdio: ['ignore', 'inherit', 'inherit']
    })
    console.log(`built ${tag}: ${config.name} ${config.version} in ${dir} on ${values.base}`)
    return 0
  } finally {
    rmSync(context, { recursive: true, force: true })
  }
}

/** `microservice kube manifests`: writes (or prints) the kustomize files of the platform. */
function kubeCommand(args: string[]): number {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      namespace: { type: 'string', default: DEFAULT_KUBE_OPTIONS.namespace },
      image: { type: 'string', default: DEFAULT_KUBE_OPTIONS.image },
      microservice: { type: 'string', multiple: true }
    }
  })
  if (positionals[0] !== 'manifests' || positionals.length > 1)
    throw new CliError(
      'usage: microservice kube manifests [--out DIR] [--namespace NS] [--image IMAGE] [--microservice NAME=IMAGE:DIR]...'
    )
  const microservices =
    values.microservice === undefined
      ? DEFAULT_KUBE_OPTIONS.microservices.map((m) => ({ ...m, image: values.image }))
      : values.microservice.map((spec) => {
          const m = /^([A-Za-z0-9._-]+)=([^\s]+):(\/[^\s:]+)$/.exec(spec)
          if (m === null)
            throw new CliError(`--microservice ${spec}: expected NAME=IMAGE:DIR (DIR: the package inside the image)`)
          return { name: m[1]!, image: m[2]!, dir: m[3]!, replicas: 2 }
        })
  const files = kubernetesManifests({
    ...DEFAULT_KUBE_OPTIONS,
    namespace: values.namespace,
    image: values.image,
    microservices
  })
  if (values.out === undefined) {
    for (const [name, text] of files) process.stdout.write(`# ${name}\n${text}`)
    return 0
  }
  mkdirSync(values.out, { recursive: true })
  for (const [name, text] of files) writeFileSync(join(values.out, name), text)
  console.log(`wrote ${files.size} files to ${values.out}; apply with kubectl apply -k ${values.out}`)
  return 0
}

/**
 * `microservice host DIR --listen tcp:HOST:PORT --secret-env NAME`: a microservice host on its own
 * (the process a platform starts for each instance), for a platform elsewhere to reach over TCP. The
 * shared secret is read from the environment variable NAME, never from the command line.
 */
async function hostCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      listen: { type: 'string', default: 'tcp:0.0.0.0:7000' },
      'secret-env': { type: 'string' },
      'drain-ms': { type: 'string' }
    }
  })
  const dir = positionals[0]
  if (dir === undefined || positionals.length > 1)
    throw new CliError('usage: microservice host <dir> [--listen tcp:HOST:PORT] [--secret-env NAME] [--drain-ms MS]')
  const drain = values['drain-ms']
  if (drain !== undefined && !/^\d+$/.test(drain))
    throw new CliError(`--drain-ms ${drain}: a whole number of milliseconds (how long a SIGTERM waits for calls)`)
  const secretEnv = values['secret-env']
  const secret = secretEnv === undefined ? '' : (process.env[secretEnv] ?? '')
  if (secretEnv !== undefined && secret === '')
    throw new CliError(
      `--secret-env ${secretEnv}: the environment variable ${secretEnv} holds no secret`,
      'IGW_SECRET_MISSING'
    )
  if (secretEnv === undefined && !/^tcp:(127\.|localhost:|\[::1\])/.test(values.listen))
    console.error(
      `microservice host: listening on ${values.listen} without a shared secret; anyone who reaches it can call it (use --secret-env)`
    )
  // The IPC channel is the host's lifeline: if this process dies (SIGKILL), the host stops too.
  const child = spawn(process.execPath, [HOST_FILE, resolve(dir)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: {
      ...hostEnv(),
      MICROSERVICE_LISTEN: values.listen,
      MICROSERVICE_SECRET: secret,
      ...(drain === undefined ? {} : { MICROSERVICE_DRAIN_MS: drain })
    }
  })
  // A signal to this process alone is passed on; a terminal's reaches both, and the host stops once.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal))
  return await new Promise<number>((done) => child.on('exit', (code) => done(code ?? 1)))
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
