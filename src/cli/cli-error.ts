// What a command of the `microservice` CLI reports on one line and exits 1 for.
import { InternalError, type InternalCode } from '../common/errors/internal'

/** What a command reports on one line and exits 1 for; IGW_CLI_USAGE unless another code says more. */
export class CliError extends InternalError {
  constructor(message: string, code: InternalCode = 'IGW_CLI_USAGE') {
    super(code, message)
  }
}
