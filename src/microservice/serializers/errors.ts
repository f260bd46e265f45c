import { InternalError } from '../../common/errors/internal'

/** A value that does not fit its descriptor; `path` says where (/a, /items/2). Becomes BAD_ARGUMENT. */
export class ValueError extends InternalError {
  constructor(
    message: string,
    readonly path: string = ''
  ) {
    super('IGW_VALUE', message)
  }

  at(segment: string | number): ValueError {
    return new ValueError(this.message, `/${segment}${this.path}`)
  }

  describe(): string {
    return this.path === '' ? this.message : `at ${this.path}: ${this.message}`
  }
}

/**
 * Rethrows `err` with `segment` in front of its path when it is a ValueError (other errors pass
 * unchanged). Called from a catch around each nested value, so the way down needs no closures.
 */
export function rethrowAt(err: unknown, segment: string | number): never {
  throw err instanceof ValueError ? err.at(segment) : err
}
