/**
 * Every error the programs raise among themselves and to their operator, as codes.ts is for the
 * answers clients get: a stable code (IGW_…) and its meaning. docs/errors.md says for each where it
 * arises and what to do, and a test keeps the two equal. An error that leaves its thread or process
 * travels as plain data ({ code, detail }) and is made an InternalError again where it arrives.
 */
export const internalCodes = {
  // The platform: its config and its start
  IGW_CONFIG: 'The platform config, its file or a PLATFORM__ variable, is not valid',
  IGW_SECRET_MISSING: 'An environment variable named for a secret or a token is empty',
  IGW_LISTEN: 'A listener of the platform cannot listen on its address and port',
  IGW_UWS: 'uWebSockets.js cannot run on this system, or not with these settings',
  IGW_CONTROL_SOCKET: 'Another platform answers on the control socket',
  IGW_INSTANCE_START: 'A microservice instance ended, was stopped or did not connect before it served',
  // Microservices, their packages and their hosts
  IGW_MICROSERVICE_CONFIG: 'A microservice.json is missing or not valid',
  IGW_MICROSERVICE_DEFINITION: "A microservice's code defines services that cannot be served",
  IGW_MICROSERVICE_LOAD: "A microservice's code (entry module or jar) is missing or cannot be loaded",
  IGW_MICROSERVICE_RUNNING: 'A microservice of this name is already running',
  IGW_HOST_SETTING: 'A MICROSERVICE_ variable of a microservice host is not valid',
  IGW_JAVA_HOST: 'A "runtime": "java" package meets a platform built without a Java host',
  IGW_PACKAGE: 'A package cannot be made, unpacked or deployed',
  // Inside a call: becomes one of the client-facing codes at the boundary
  IGW_WORKER_TIMEOUT: "A worker's task took longer than its timeout",
  IGW_BODY_SYNTAX: 'A body is not well-formed JSON or XML',
  IGW_VALUE: 'A value does not fit its declared type',
  IGW_PROTOCOL_FRAME_TOO_LARGE: 'A frame between the gateway and a microservice is larger than the limit',
  IGW_PROTOCOL_MALFORMED_FRAME: 'A frame between the gateway and a microservice cannot be decoded',
  // The microservice command
  IGW_CLI_USAGE: 'A command, an argument or an option is not valid',
  IGW_CLI_PLATFORM: 'The platform or a node cannot be reached, or did not finish in time',
  IGW_CLI_REFUSED: 'The platform or a node refused what the command asked',
  IGW_BENCH: 'The route a bench measures, or its reference server, does not answer',
  // Anywhere
  IGW_ASSERTION: 'Something that cannot happen did: a bug'
} as const satisfies Record<`IGW_${string}`, string>

export type InternalCode = keyof typeof internalCodes

/** An InternalError as data: survives the trip between threads and processes unchanged. */
export interface InternalFailure {
  code: InternalCode
  detail: string
}

/**
 * Thrown inside the programs with a code of the table. The message is the sentence an operator
 * reads; the code names the kind. Subclasses exist where a caller tells errors apart by class.
 */
export class InternalError extends Error {
  constructor(
    readonly code: InternalCode,
    message: string,
    options?: ErrorOptions
  ) {
    super(message, options)
    this.name = new.target.name
  }

  /** `err` as data to post to another thread or process; `fallback` is the code of an error without one. */
  static toFailure(err: unknown, fallback: InternalCode): InternalFailure {
    return { code: err instanceof InternalError ? err.code : fallback, detail: errorMessage(err) }
  }

  /** Data from another thread or process as an error again, `prefix` before its detail. */
  static fromFailure(f: InternalFailure, prefix = ''): InternalError {
    return new InternalError(f.code, prefix + f.detail)
  }
}

/** The message of anything thrown: an Error's (of any realm), else the value as a string. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message
  if (typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string')
    return (err as { message: string }).message
  return String(err)
}
