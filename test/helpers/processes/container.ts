// The image suites' platform in a container (test/image/*.suite.ts): podman through the project's
// wrapper (scripts/image/podman.sh: the settings this machine needs), the platform's ports on the
// host's loopback, an upload directory mounted as an operator would.
import { chownSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../nginx'
import { ROOT } from '../root'
import { runFile } from '../exec'
import { until } from '../until'

export const PODMAN = join(ROOT, 'scripts', 'image', 'podman.sh')

/** podman ARGS: what it printed, or a throw with its error output when it failed. */
export async function podman(...args: string[]): Promise<string> {
  const r = await runFile(PODMAN, args)
  if (r.code !== 0) throw new Error(`podman ${args.join(' ')} exited ${r.code}: ${r.stderr}`)
  return r.stdout
}

/** `podman run -d` of `image` named `name` on the host's network, with these settings (NAME=value) and volumes. */
export function runOnHostNetwork(name: string, image: string, settings: string[], volumes: string[]): string[] {
  return [
    'run',
    '-d',
    '--name',
    name,
    '--network',
    'host',
    ...settings.flatMap((s) => ['-e', s]),
    ...volumes.flatMap((v) => ['-v', v]),
    image
  ]
}

export interface PlatformContainer {
  /** The gateway's address, http://127.0.0.1:PORT. */
  base: string
  edge: number
  admin: number
  /** The host directory mounted as the container's upload directory (owned by the image's user). */
  upload: string
}

/**
 * A container of `image` named `name`, on the host's network, its gateway, edge and admin on free
 * loopback ports; resolves once /readyz answers 200. `env` adds settings (NAME=value).
 */
export async function startPlatformContainer(
  name: string,
  image: string,
  env: string[] = [],
  /** More volumes (HOST:CONTAINER[:ro]). */
  volumes: string[] = []
): Promise<PlatformContainer> {
  const [gateway, edge, admin] = [await freePort(), await freePort(), await freePort()]
  const upload = mkdtempSync(join(tmpdir(), 'image-upload-'))
  chownSync(upload, 1000, 1000) // the image's user
  const settings = [
    'PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__host=127.0.0.1',
    `PLATFORM__ENTRY_POINTS__WEB_SERVICE_FACADE_HTTP__port=${gateway}`,
    'PLATFORM__EDGE__host=127.0.0.1',
    `PLATFORM__EDGE__port=${edge}`,
    'PLATFORM__ADMIN__host=127.0.0.1',
    `PLATFORM__ADMIN__port=${admin}`,
    ...env
  ]
  await podman(...runOnHostNetwork(name, image, settings, [`${upload}:/var/lib/invocation-gateway/upload`, ...volumes]))
  await until(async () => (await fetch(`http://127.0.0.1:${admin}/readyz`)).status === 200, 60_000, '/readyz 200')
  return { base: `http://127.0.0.1:${gateway}`, edge, admin, upload }
}
