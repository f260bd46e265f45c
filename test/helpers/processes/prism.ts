// What the description tests share: Prism's proxy in front of the edge, a rewriting hop behind it that
// lets one described operation reach the gateway's other answers, a check of XML answers (Prism reads
// no XML), and fast-check arbitraries made from a description's request schemas.
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, request, type Server } from 'node:http'
import { createServer as createNetServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import fc from 'fast-check'
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { ROOT } from '../root'

export const BIN = join(ROOT, 'node_modules', '.bin')

/** A port free a moment ago: Prism takes no port 0. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo
      s.close(() => resolve(port))
    })
  })
}

/**
 * Request headers the rewriting hop reads (and drops): the microservice, path and HTTP method the
 * call goes on with, so the answers of other routes and methods meet a described operation in Prism.
 */
export const REWRITE = {
  microservice: 'x-test-microservice',
  path: 'x-test-path',
  method: 'x-test-method'
} as const

/** Forwards `/{service}/{method}` to `${edge}/_eapi/ELASTIC_HTTP/{microservice}/…`, body and headers as they are. */
export async function rewritingHop(edge: string, microservice: string): Promise<{ url: string; close(): void }> {
  const target = new URL(edge)
  const server: Server = createServer((req, res) => {
    const headers = { ...req.headers }
    const ms = (headers[REWRITE.microservice] as string | undefined) ?? microservice
    const path = (headers[REWRITE.path] as string | undefined) ?? req.url ?? '/'
    const method = (headers[REWRITE.method] as string | undefined) ?? req.method ?? 'POST'
    for (const h of Object.values(REWRITE)) delete headers[h]
    delete headers.host
    const out = request(
      { host: target.hostname, port: target.port, method, path: `/_eapi/ELASTIC_HTTP/${ms}${path}`, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    out.on('error', (e) => res.destroy(e))
    req.pipe(out)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() }
}

export interface Prism {
  readonly url: string
  stop(): Promise<void>
}

/** `prism proxy` in front of `upstream`, answers passed through, its findings in `sl-violations`. */
export async function startPrismProxy(description: string, upstream: string): Promise<Prism> {
  const port = await freePort()
  const child: ChildProcess = spawn(
    join(BIN, 'prism'),
    ['proxy', description, upstream, '-h', '127.0.0.1', '-p', String(port), '--errors=false'],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: false }
  )
  let output = ''
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }
  const deadline = Date.now() + 60_000
  while (!/Prism is listening/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop()
      throw new Error(`prism proxy did not start:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return { url: `http://127.0.0.1:${port}`, stop }
}

export interface Violation {
  readonly location: string[]
  readonly severity: string
  readonly code: string | number
  readonly message: string
}

export function violationsOf(headers: Headers): Violation[] {
  const raw = headers.get('sl-violations')
  return raw === null ? [] : (JSON.parse(raw) as Violation[])
}

type Node = { [k: string]: unknown }

/** The node a `#/…` pointer names. */
export function at(doc: object, pointer: string): Node {
  return pointer
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<Node>((n, p) => n[p] as Node, doc as Node)
}

/** The `xml` object that names a schema's root element: its own, else its first allOf member's or $ref's. */
export function xmlOf(doc: object, schema: Node): { name?: string; namespace?: string } {
  if (schema.xml !== undefined) return schema.xml as { name?: string; namespace?: string }
  if (typeof schema.$ref === 'string') return xmlOf(doc, at(doc, schema.$ref))
  if (Array.isArray(schema.allOf)) return xmlOf(doc, schema.allOf[0] as Node)
  if (Array.isArray(schema.anyOf))
    return xmlOf(
      doc,
      (schema.anyOf as Node[]).find((s) => s.type !== 'null')!
    )
  return {}
}

/**
 * Checks an XML answer against the response its operation documents for the status: the media type is
 * one the response lists, the body well-formed, its root element named (and in the namespace) as the
 * schema's `xml` says. The messages of what does not hold; empty when all does.
 */
export function xmlAnswerErrors(
  doc: object,
  operation: Node,
  status: number,
  contentType: string,
  body: string
): string[] {
  const responses = operation.responses as Record<string, Node>
  const response = responses[String(status)] ?? responses.default
  if (response === undefined) return [`status ${status} is not documented`]
  const media = contentType.split(';')[0]!.trim()
  const content = (response.content ?? {}) as Record<string, Node>
  const entry = content[media]
  if (entry === undefined) return [`${status}: ${media} is not one of ${Object.keys(content).join(', ')}`]
  const valid = XMLValidator.validate(body)
  if (valid !== true) return [`${status} ${media}: not well-formed: ${valid.err.msg}: ${body}`]
  const parsed = new XMLParser({ ignoreAttributes: false, ignoreDeclaration: true }).parse(body) as Node
  const roots = Object.keys(parsed)
  const xml = xmlOf(doc, entry.schema as Node)
  const errors: string[] = []
  if (roots.length !== 1 || roots[0] !== xml.name)
    errors.push(`${status} ${media}: root <${roots.join('><')}>, the schema names <${xml.name ?? '?'}>`)
  const ns = (parsed[roots[0]!] as Node | undefined)?.['@_xmlns']
  if ((xml.namespace ?? undefined) !== (ns ?? undefined))
    errors.push(`${status} ${media}: namespace ${String(ns)}, the schema says ${String(xml.namespace)}`)
  return errors
}

/** An arbitrary of the values a JSON schema of the description accepts (the keywords the generator writes). */
export function arbitraryOf(doc: object, schema: Node, depth = 0): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === 'string') return arbitraryOf(doc, at(doc, schema.$ref), depth)
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as Node[]).map((s) => arbitraryOf(doc, s, depth)))
  if ('const' in schema) return fc.constant(schema.const)
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]))
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string]
  return fc.oneof(...types.map((t) => typed(doc, schema, t, depth)))
}

function typed(doc: object, schema: Node, type: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null)
    case 'boolean':
      return fc.boolean()
    case 'integer':
      return schema.format === 'int64'
        ? fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER })
        : fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true })
    case 'string':
      // Prism stops on a non-ASCII header or member name; the values stay printable ASCII too.
      return fc.string({
        unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
        minLength: (schema.minLength as number | undefined) ?? 0,
        maxLength: (schema.maxLength as number | undefined) ?? 12
      })
    case 'array':
      return depth > 3 ? fc.constant([]) : fc.array(arbitraryOf(doc, schema.items as Node, depth + 1), { maxLength: 3 })
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Node>
      const required = (schema.required ?? []) as string[]
      const shape: Record<string, fc.Arbitrary<unknown>> = {}
      for (const [k, s] of Object.entries(props)) shape[k] = arbitraryOf(doc, s, depth + 1)
      return fc.record(shape, { requiredKeys: required })
    }
    default:
      throw new Error(`no arbitrary for type ${type}`)
  }
}
