// Rewriting JSON text without changing what it means, for the property tests of the direct readers.

/** Spaces, tabs and newlines after every structural character outside strings (`pick` chooses which). */
export function respace(text: string, pick: number): string {
  const ws = [' ', '\n', '\t ', '\r\n  '][pick % 4]!
  let out = ''
  let inString = false
  for (let k = 0; k < text.length; k++) {
    const c = text[k]!
    out += c
    if (inString) {
      if (c === '\\') out += text[++k] ?? ''
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if ('{}[]:,'.includes(c)) out += ws
  }
  return ws + out
}
