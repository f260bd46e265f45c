import type { gateway } from '../../common/protocol/generated/gateway'
import type { Failure } from '../../common/errors/codes'

/** What a call ends with: the microservice's Result, or a failure from dispatch (lost connection, not connected). */
export type CallOutcome = gateway.Result | Failure

/** A call waiting for its Result. The HTTP side implements it; dispatch settles it exactly once. */
export interface PendingCall {
  readonly callId: number
  /** The connection the call went out on, while it is in flight. */
  connection: { cancel(call: PendingCall): void; readonly readyAt: number } | null
  settle(outcome: CallOutcome): void
}
