import { join, delimiter } from 'node:path'

/** The package name microservices import the SDK by. */
export const RUNTIME_PACKAGE = 'invocation-gateway'

/**
 * Where a microservice process finds `invocation-gateway/runtime`: the build links
 * dist/modules/invocation-gateway to this project, so Node's documented NODE_PATH lookup resolves
 * the name through package.json "exports" to this platform's runtime, wherever a package was
 * unpacked. No loader is patched, and every microservice shares one copy of the runtime.
 */
export const MODULES_DIR = join(__dirname, '..', '..', '..', 'modules')

/** The process that runs one microservice (src/microservice/host/host.ts, compiled). */
export const HOST_FILE = join(__dirname, 'host.js')

/** The environment of a microservice host process. */
export function hostEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const nodePath =
    base.NODE_PATH === undefined || base.NODE_PATH === '' ? MODULES_DIR : `${MODULES_DIR}${delimiter}${base.NODE_PATH}`
  return { ...base, NODE_PATH: nodePath }
}
