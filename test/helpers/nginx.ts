// A real nginx (Debian's package; scripts/ensure-debian.sh installs it when missing) running the
// configuration `microservice edge nginx-config --standalone` writes, in a directory of its own.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { connect, createServer } from 'node:net'
import { nginxEdgeConfig, type EdgeNode, type NginxEdgeOptions } from '../../src/cli/manifests/nginx'
import { ROOT } from './root'

export function ensureNginx(): string {
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'nginx:nginx-light'], { stdio: 'inherit' })
  for (const p of ['/usr/sbin/nginx', '/usr/bin/nginx']) if (existsSync(p)) return p
  return 'nginx'
}

/**
 * Ports handed out in this process. The kernel may give a port back as soon as it is closed, so two
 * calls in a row can return the same one: a platform then found its gateway and edge on one port
 * (test/integration/lifecycle/startup.test.ts in CI). Each port is handed out once.
 */
const handedOut = new Set<number>()

/** A port on 127.0.0.1 that was free a moment ago and that no earlier call in this process returned. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await anyFreePort()
    if (!handedOut.has(port)) {
      handedOut.add(port)
      return port
    }
  }
}

function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

export interface RunningNginx {
  url: string
  /** The h2c listener's URL, when asked for. */
  h2cUrl: string | null
  prefix: string
  config: string
  /** nginx's error log so far (what it says about the nodes when a call fails). */
  errors(): string
  stop(): Promise<void>
}

export async function startNginx(
  nodes: EdgeNode[],
  limits = { maxBodyBytes: 65536, executingTimeoutMs: 240000 },
  tls: Pick<NginxEdgeOptions, 'tls' | 'upstreamTls' | 'upstreamEdgeTls' | 'clientCertificates'> & { h2c?: boolean } = {}
): Promise<RunningNginx> {
  const bin = ensureNginx()
  const prefix = mkdtempSync(join(tmpdir(), 'nginx-edge-'))
  for (const d of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi', 'logs']) mkdirSync(join(prefix, d))
  const port = await freePort()
  const { h2c, ...options } = tls
  const h2cPort = h2c === true ? await freePort() : null
  const config = nginxEdgeConfig({
    nodes,
    listen: `127.0.0.1:${port}`,
    h2cListen: h2cPort === null ? null : `127.0.0.1:${h2cPort}`,
    ...limits,
    ...options,
    standalone: { prefix }
  })
  // As root, nginx's workers run as nobody: they must be able to use the temporary directories.
  const text = process.getuid?.() === 0 ? `user root;\n${config}` : config
  writeFileSync(join(prefix, 'nginx.conf'), text)
  execFileSync(bin, ['-t', '-p', prefix, '-c', join(prefix, 'nginx.conf')], { stdio: 'pipe' })
  const child: ChildProcess = spawn(bin, ['-p', prefix, '-c', join(prefix, 'nginx.conf')], { stdio: 'ignore' })
  const url = `${tls.tls ? 'https' : 'http'}://127.0.0.1:${port}`
  const deadline = Date.now() + 10000
  for (;;) {
    try {
      await new Promise<void>((resolve, reject) => {
        const s = connect(port, '127.0.0.1', () => (s.destroy(), resolve()))
        s.once('error', reject)
      })
      break
    } catch {
      if (Date.now() > deadline)
        throw new Error(`nginx did not start: ${readFileSync(join(prefix, 'error.log'), 'utf8')}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  return {
    url,
    h2cUrl: h2cPort === null ? null : `http://127.0.0.1:${h2cPort}`,
    prefix,
    config: text,
    errors: () => {
      try {
        return readFileSync(join(prefix, 'error.log'), 'utf8')
      } catch {
        return ''
      }
    },
    async stop() {
      const exited = new Promise<void>((r) => child.once('exit', () => r()))
      child.kill('SIGQUIT')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
      if (child.exitCode === null) child.kill('SIGKILL')
      rmSync(prefix, { recursive: true, force: true })
    }
  }
}
