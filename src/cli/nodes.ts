// `microservice upload|rollback --node HOST:PORT ...`: one package across several platforms, one node at a time.
import { existsSync, readFileSync, statSync } from 'node:fs'
import { basename } from 'node:path'
import { parseArgs } from 'node:util'
import { errorMessage } from '../common/errors/internal'
import type { MicroserviceStatus } from '../platform/manager'
import { versionRefusal } from '../platform/package/upgrade-check'
import { type UnpackLimits } from '../platform/package/zip'
import { CliError } from './cli-error'
import { packageConfigOf, zipMicroserviceName } from './package-file'

/** What a node's admin listener answers about one microservice (GET /status). */
export interface NodeView {
  version: string | null
  versions: string[]
  unavailable: string | null
}

export async function nodeView(node: string, name: string): Promise<NodeView> {
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
export async function acrossNodes(
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
export async function announce(
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
