import { createServer, type Server, type IncomingMessage, type ServerResponse } from 'node:http'
import { rmSync, mkdirSync, existsSync } from 'node:fs'
import { connect } from 'node:net'
import { dirname, join } from 'node:path'
import type { MicroserviceManager } from './manager'
import type { Deployer } from './package/deployer'
import { tailInstanceLogs } from './instance-logs'
import { InternalError, errorMessage } from '../common/errors/internal'

/** Where this platform serves (the ports it listens on, which PLATFORM__ overrides may have changed). */
export interface PlatformAbout {
  pid: number
  /** `tls`: the listener speaks HTTPS (absent from a platform older than the field: plain HTTP). */
  gateway: { host: string; port: number; tls?: boolean }
  edge: { host: string; port: number; tls?: boolean } | null
}

/**
 * The platform's control API for the `microservice` command: HTTP over a Unix socket, so only
 * local users with access to the socket file can use it. Every refusal is a JSON { error }.
 */
export class ControlServer {
  private server: Server | null = null

  constructor(
    private readonly manager: MicroserviceManager,
    private readonly deployer: Deployer,
    readonly socketPath: string,
    private readonly about: () => PlatformAbout
  ) {}

  /** Refuses to take the socket of a platform that is running (replacing it would cut that one off). */
  private async checkUnused(): Promise<void> {
    if (existsSync(this.socketPath) && (await answers(this.socketPath)))
      throw new InternalError(
        'IGW_CONTROL_SOCKET',
        `another platform is running with the control socket ${this.socketPath} (it answered): stop it first, or give this one its own PLATFORM.controlSocket (PLATFORM__PLATFORM__controlSocket=…) and ports`
      )
  }

  async listen(): Promise<void> {
    await this.checkUnused()
    mkdirSync(dirname(this.socketPath), { recursive: true })
    rmSync(this.socketPath, { force: true }) // a socket left by a platform that did not stop cleanly
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => reply(res, 500, { error: errorMessage(err) }))
    })
    this.server = server
    return new Promise((resolve, reject) => {
      server.once('error', reject)
      server.listen(this.socketPath, () => resolve())
    })
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.server === null) {
        resolve()
        return
      }
      this.server.close(() => {
        rmSync(this.socketPath, { force: true })
        resolve()
      })
      this.server.closeAllConnections()
    })
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://control')
    const parts = url.pathname
      .split('/')
      .filter((p) => p !== '')
      .map(decodeURIComponent)
    if (parts.length === 1 && parts[0] === 'platform' && req.method === 'GET') return reply(res, 200, this.about())
    if (parts[0] !== 'microservices') return reply(res, 404, { error: `unknown path ${url.pathname}` })
    if (parts.length === 1 && req.method === 'GET') {
      return reply(res, 200, this.manager.statuses())
    }
    const name = parts[1]!
    const action = parts[2]
    const microservice = this.manager.get(name)
    if (microservice === undefined && action === 'logs' && req.method === 'GET' && /^[A-Za-z0-9][\w.-]*$/.test(name)) {
      // Removed (or deployed before a restart that dropped it): its log files stay and are read.
      const files = this.manager.options.logs
      const lines = files === undefined ? [] : tailInstanceLogs(files.directory, name, logLines(url))
      if (lines.length > 0) return reply(res, 200, { lines })
    }
    if (microservice === undefined) {
      // Served only by remote instances: status, but nothing to stop, start, remove or read logs of here.
      const remote = this.manager.statusOf(name)
      if (remote !== undefined && action === undefined && req.method === 'GET') return reply(res, 200, remote)
      if (remote !== undefined)
        return reply(res, 409, { error: `'${name}' runs only on remote instances; manage it on their hosts` })
      return reply(res, 404, { error: `no microservice named '${name}' is deployed` })
    }
    if (action === undefined && req.method === 'GET') return reply(res, 200, this.manager.statusOf(name)!)
    if (action === undefined && req.method === 'DELETE') {
      await this.manager.remove(name)
      this.deployer.record(name, null, 'stopped')
      rmSync(join(this.deployer.options.deploymentDirectory, name), { recursive: true, force: true })
      return reply(res, 200, { message: `removed ${name}` })
    }
    if (action === 'logs' && req.method === 'GET') {
      return reply(res, 200, { lines: microservice.tail(logLines(url)) })
    }
    if (action === 'rollback' && req.method === 'POST') {
      const r = await this.deployer.rollback(name)
      return reply(res, r.ok ? 200 : 409, r.ok ? { message: r.message } : { error: r.message })
    }
    if (action === 'stop' && req.method === 'POST') {
      if (microservice.desired === 'stopped') return reply(res, 409, { error: `${name} is already stopped` })
      await microservice.stop()
      this.deployer.record(name, microservice.dir, 'stopped')
      return reply(res, 200, { message: `stopped ${name}` })
    }
    if (action === 'start' && req.method === 'POST') {
      if (microservice.desired === 'running' && microservice.instances.some((i) => i.state === 'running'))
        return reply(res, 409, { error: `${name} is already running` })
      await microservice.start()
      this.deployer.record(name, microservice.dir, 'running')
      return reply(res, 200, { message: `started ${name} ${microservice.config.version}` })
    }
    return reply(res, 405, {
      error: `${req.method ?? ''} ${url.pathname} is not an action (stop, start, rollback, logs, or DELETE)`
    })
  }
}

/** `?lines=N`: 100 by default, 1 to 1000. */
function logLines(url: URL): number {
  return Math.min(Math.max(Number(url.searchParams.get('lines') ?? '100') || 100, 1), 1000)
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' })
  res.end(JSON.stringify(body))
}

/** Whether something accepts connections on the Unix socket at `path` (a file left behind does not). */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path)
    socket.setTimeout(2000, () => socket.destroy())
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    // Refused (a file left by a platform that was killed), or not a socket at all: nobody answers.
    socket.once('error', () => resolve(false))
    socket.once('close', () => resolve(false))
  })
}
