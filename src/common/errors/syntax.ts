import { InternalError } from './internal'

/** A body that is not well-formed, with the byte offset of the first error. Becomes MALFORMED_BODY or BAD_ARGUMENT. */
export class SyntaxErrorAt extends InternalError {
  constructor(
    message: string,
    readonly offset: number,
    unit: 'byte' | 'character' = 'byte'
  ) {
    super('IGW_BODY_SYNTAX', `${message} at ${unit} ${offset}`)
  }
}
