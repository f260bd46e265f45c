// The CLI's side of the platform's control socket (src/platform/control.ts): one request, its JSON answer.
import { existsSync } from 'node:fs'
import { request } from 'node:http'
import { DEFAULT_CONFIG_FILE, type PlatformConfig } from '../common/config/config'
import { CliError } from './cli-error'

/**
 * Where the command looked, and why a running platform may be elsewhere: the command finds the
 * platform by the same config the platform was started with (PLATFORM_CONFIG and PLATFORM__ variables),
 * so a platform whose home was moved is found only with the same settings.
 */
export function notFoundHint(socketPath: string, env: NodeJS.ProcessEnv = process.env): string {
  const file = env.PLATFORM_CONFIG ?? DEFAULT_CONFIG_FILE
  const moved = env.PLATFORM__PLATFORM__controlSocket !== undefined ? ' and PLATFORM__PLATFORM__controlSocket' : ''
  return (
    `the control socket ${socketPath} comes from the config ${file}${moved}; a platform started with another ` +
    `PLATFORM_CONFIG or PLATFORM__PLATFORM__controlSocket is found with the same setting here ` +
    `(e.g. PLATFORM_CONFIG=/path/to/its.json microservice list); or start one with npm start`
  )
}

export function control(
  config: PlatformConfig,
  method: string,
  path: string
): Promise<{ status: number; body: unknown }> {
  const socketPath = config.platform.controlSocket
  if (!existsSync(socketPath))
    throw new CliError(`no platform answers here: ${notFoundHint(socketPath)}`, 'IGW_CLI_PLATFORM')
  return new Promise((resolvePromise, reject) => {
    const req = request({ socketPath, path, method }, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => {
        text += d.toString()
      })
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }))
    })
    req.on('error', (err) =>
      reject(new CliError(`cannot reach a platform (${err.message}): ${notFoundHint(socketPath)}`, 'IGW_CLI_PLATFORM'))
    )
    req.end()
  })
}

export async function call(config: PlatformConfig, method: string, path: string): Promise<unknown> {
  const r = await control(config, method, path)
  if (r.status >= 400) throw new CliError((r.body as { error: string }).error, 'IGW_CLI_REFUSED')
  return r.body
}
