/** A value that does not fit its descriptor; `path` says where (/a, /items/2). Becomes BAD_ARGUMENT. */
export class ValueError extends Error {
  constructor (message: string, readonly path: string = '') {
    super(message)
    this.name = 'ValueError'
  }

  at (segment: string | number): ValueError {
    return new ValueError(this.message, `/${segment}${this.path}`)
  }

  describe (): string {
    return this.path === '' ? this.message : `at ${this.path}: ${this.message}`
  }
}

/** Runs `fn`, prefixing the path of a ValueError it throws with `segment`. */
export function within<T> (segment: string | number, fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    if (err instanceof ValueError) throw err.at(segment)
    throw err
  }
}
