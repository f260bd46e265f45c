import { InternalError } from '../../common/errors/internal'

/** A mistake in how the command was called (exit 2); `usage` also prints the options. */
export class BenchUsageError extends InternalError {
  constructor(
    message: string,
    readonly usage = true
  ) {
    super('IGW_CLI_USAGE', message)
  }
}
