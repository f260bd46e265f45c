/** A mistake in how the command was called (exit 2); `usage` also prints the options. */
export class BenchUsageError extends Error {
  constructor(
    message: string,
    readonly usage = true
  ) {
    super(message)
  }
}
