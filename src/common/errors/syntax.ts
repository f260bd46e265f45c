/** A body that is not well-formed, with the byte offset of the first error. Becomes MALFORMED_BODY or BAD_ARGUMENT. */
export class SyntaxErrorAt extends Error {
  constructor(
    message: string,
    readonly offset: number,
    unit: 'byte' | 'character' = 'byte'
  ) {
    super(`${message} at ${unit} ${offset}`)
    this.name = new.target.name
  }
}
