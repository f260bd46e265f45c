// The CLI's side of the platform's control socket (src/platform/control.ts): one request, its JSON answer.
import { existsSync } from 'node:fs'
import { request } from 'node:http'
import { type PlatformConfig } from '../gateway/config/config'
import { CliError } from './cli-error'

export function control(
  config: PlatformConfig,
  method: string,
  path: string
): Promise<{ status: number; body: unknown }> {
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

export async function call(config: PlatformConfig, method: string, path: string): Promise<unknown> {
  const r = await control(config, method, path)
  if (r.status >= 400) throw new CliError((r.body as { error: string }).error, 'IGW_CLI_REFUSED')
  return r.body
}
