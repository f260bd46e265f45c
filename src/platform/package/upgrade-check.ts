import { compareVersions } from '../../common/contract/semver'

/**
 * Why an upload of `incoming` over the running `running` is refused, or null when it goes ahead: the
 * same version again or an older one replaces what runs without saying so, so it takes --force.
 */
export function versionRefusal(name: string, incoming: string, running: string | null, where = ''): string | null {
  if (running === null) return null
  const c = compareVersions(incoming, running)
  if (c > 0) return null
  return c === 0
    ? `${name} ${running} is deployed already${where}; to replace it with this package, upload again with --force`
    : `${name} ${running} is deployed${where}, newer than ${incoming}; to go back, use microservice rollback ${name} or upload again with --force`
}
