// Microservices import the platform's runtime as 'invocation-gateway/runtime'. Their packages hold
// only their own code, so the process that runs one resolves that name to this platform's runtime:
// a package works wherever it is unpacked, and every microservice shares one copy of the runtime.
import Module from 'node:module'

export const RUNTIME_MODULE = 'invocation-gateway/runtime'
const target = require.resolve('./index')

interface Resolver { _resolveFilename (request: string, parent: unknown, isMain: boolean, options?: unknown): string }
const resolver = Module as unknown as Resolver
const original = resolver._resolveFilename

if ((original as { aliased?: boolean }).aliased !== true) {
  const aliased = function (this: unknown, request: string, parent: unknown, isMain: boolean, options?: unknown): string {
    return request === RUNTIME_MODULE ? target : original.call(this, request, parent, isMain, options)
  }
  ;(aliased as { aliased?: boolean }).aliased = true
  resolver._resolveFilename = aliased
}
