import type { Descriptor, Infer, InferTuple } from '../descriptors/descriptors'
import type { Serializer } from '../serializers/serializer'
import type { SerializerBeanName } from '../../common/contract/vocabulary'

/** What a method learns about the call: the X-PLATFORM-* headers, and whether it is privileged. */
export interface CallContext {
  readonly locale: string | null
  readonly privilegeNames: readonly string[]
  readonly requestId: string | null
  readonly sessionId: string | null
  readonly user: string | null
  readonly clientApplicationName: string | null
  readonly ip: string | null
  /**
   * W3C Trace Context of the call: the client's traceparent as sent (or the gateway's span, when an
   * OpenTelemetry SDK is installed there, or one the gateway made), and its tracestate.
   */
  readonly traceparent: string | null
  readonly tracestate: string | null
  /**
   * The subject of the client certificate verified for the call, RFC 4514 order (`CN=billing,O=Acme`):
   * by the gateway's or the edge's listener (tls.clientCertificates), or by a TLS terminator in front
   * that the gateway trusts (X-PLATFORM-Certificate-Subject, as the generated nginx sends it); null
   * without one.
   */
  readonly certificateSubject: string | null
  /** The permission resolver's verdict on privilegeNames. */
  readonly privileged: boolean
  /** Aborted when the call is cancelled by the gateway or passes the executing timeout. */
  readonly signal: AbortSignal
}

/**
 * The parameter annotation (docs/contract.md): how the API description presents the method's one (ROA) parameter.
 * Documentation only; it changes nothing about invocation.
 */
export interface ParameterNote {
  /** The name shown for the request body. */
  readonly name?: string
  readonly description?: string
  /** An example value, as the method receives it (the description shows it in the wire shapes). */
  readonly example?: unknown
  /** Whether a body must be sent; default true. */
  readonly required?: boolean
}

/**
 * The operation annotation (docs/contract.md): a method that has one appears in the generated API description
 * (ROA methods only: exactly one parameter). Documentation only.
 */
export interface OperationNote {
  readonly summary: string
  /** Longer text (Markdown), shown under the summary. */
  readonly notes?: string
  readonly parameter?: ParameterNote
  /** An example of the returned value. */
  readonly returns?: { readonly description?: string; readonly example?: unknown }
}

/** The API annotation on a service (docs/contract.md): its group's title in the description. Documentation only. */
export interface ApiNote {
  readonly title?: string
  readonly description?: string
  readonly tags?: readonly string[]
}

/** A method as the runtime keeps it; its handler's argument types follow from `params`. */
export interface MethodDefinition {
  readonly name: string
  readonly params: readonly Descriptor[]
  readonly returns: Descriptor
  /** Only a privileged call may run it (403 PRIVILEGE_DENIED otherwise). */
  readonly privileged: boolean
  readonly handler: (ctx: CallContext, ...args: never[]) => unknown
  /** Present when the method is documented (it then appears in the API description). */
  readonly operation: OperationNote | null
  /** Where it runs (MethodOptions.execution); 'auto' unless the method says otherwise. */
  readonly execution: MethodExecution
}

/**
 * Where a method runs. 'inline': on the microservice's main thread, like every async method (it may
 * share module state with other calls). 'worker': always on a worker thread of the method pool (a
 * CPU-bound method: it does not hold up other calls, and threadExecutingTimeOut stops it even in
 * synchronous code). 'auto': inline, or on a worker when the call's arguments reach the
 * microservice's workerMinArgumentBytes setting. A method run on a worker sees its own copy of the
 * module's state: the worker loads the microservice's code itself.
 */
export type MethodExecution = 'inline' | 'worker' | 'auto'

export interface ServiceDefinition {
  readonly name: string
  readonly methods: readonly MethodDefinition[]
  readonly api: ApiNote | null
}

/** Decides whether a call is privileged from X-PLATFORM-Privilege-Names. */
export type PermissionResolver = (
  privilegeNames: readonly string[],
  context: Omit<CallContext, 'privileged' | 'signal'>
) => boolean

export interface MicroserviceDefinition {
  readonly services: readonly ServiceDefinition[]
  /** Regular expressions, each matched against the whole service name: a match makes the service callable. */
  readonly platformRegularExpressionToRemotelyEnabled: readonly string[]
  /** Serializers defined by the microservice, by bean name; they replace the default of their sequence. */
  readonly serializers?: Partial<Record<SerializerBeanName, Serializer>>
  /** Type aliases registered on the default alpha serializers: Java class name → alias. */
  readonly aliases?: Readonly<Record<string, string>>
  /** Replaces the default resolver, which grants the names listed in the microservice config. */
  readonly permissionResolver?: PermissionResolver
  /** The license the API description states (its `info.license`); see DEFAULT_LICENSE when absent. */
  readonly license?: LicenseNote
}

/** OpenAPI's license object: a name, and an SPDX identifier or a URL. */
export type LicenseNote =
  { readonly name: string; readonly identifier: string } | { readonly name: string; readonly url: string }

export interface MethodOptions<P extends readonly Descriptor[], R extends Descriptor> {
  params: P
  returns: R
  privileged?: boolean
  handler: (ctx: CallContext, ...args: InferTuple<P>) => Infer<R> | Promise<Infer<R>>
  /** Documents the method in the API description (the operation annotation of docs/contract.md). */
  operation?: OperationNote
  /** Where it runs; default 'auto' (see MethodExecution). */
  execution?: MethodExecution
}

/** Declares a method; TypeScript checks the handler against the descriptors. */
export function method<const P extends readonly Descriptor[], R extends Descriptor>(
  name: string,
  options: MethodOptions<P, R>
): MethodDefinition {
  return Object.freeze({
    name,
    params: options.params,
    returns: options.returns,
    privileged: options.privileged === true,
    handler: options.handler as unknown as MethodDefinition['handler'],
    operation: options.operation ?? null,
    execution: options.execution ?? 'auto'
  })
}

/** Declares a service; `api` documents it in the API description (the API annotation of docs/contract.md). */
export function service(name: string, methods: readonly MethodDefinition[], api?: ApiNote): ServiceDefinition {
  return Object.freeze({ name, methods, api: api ?? null })
}

export function defineMicroservice(definition: MicroserviceDefinition): MicroserviceDefinition {
  return Object.freeze(definition)
}

/** Thrown by a method to answer with its own status (4xx or 5xx) and message: code METHOD_FAILED. */
export class ServiceError extends Error {
  constructor(
    message: string,
    readonly status = 500
  ) {
    super(message)
    this.name = 'ServiceError'
  }
}
