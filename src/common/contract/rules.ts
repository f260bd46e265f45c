import type { Failure } from '../errors/codes'

/**
 * The call rules that both the gateway (before a round trip) and the microservice runtime (for
 * callers that reach it directly) enforce, stated once with one message each.
 */

/** docs/contract.md, Calls: ROA can call only methods that have exactly one parameter. */
export function roaRule(service: string, method: string, parameterCount: number): Failure | null {
  if (parameterCount === 1) return null
  return {
    code: 'ROA_NEEDS_ONE_PARAMETER',
    detail:
      `${service}.${method} has ${parameterCount} parameters; ROA calls only methods with exactly one, ` +
      'use RMC (X-PLATFORM-API-ID: RMC)'
  }
}

/** RMC: one argument per parameter, in order. */
export function argumentCountRule(
  service: string,
  method: string,
  parameterCount: number,
  argumentCount: number
): Failure | null {
  if (parameterCount === argumentCount) return null
  const s = parameterCount === 1 ? '' : 's'
  return {
    code: 'ARGUMENT_COUNT',
    detail: `${service}.${method} takes ${parameterCount} argument${s}, the body has ${argumentCount}`
  }
}
