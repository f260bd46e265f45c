/**
 * A JSON string literal. Jackson and Jettison escape alike (`"`, `\\`, control characters, `/` and
 * non-ASCII raw) but for two details, which are the options.
 */
export interface JsonStringStyle {
  /** Jettison writes `</` as `<\/`. */
  escapeCloseTag: boolean
  /** Jackson writes `\u001F`, Jettison `\u001f`. */
  upperHex: boolean
  /** Jettison also escapes the line and paragraph separators, U+2028 and U+2029. */
  escapeLineSeparators: boolean
}

const SPECIAL = /["\\\u0000-\u001f]|<\//g
const SPECIAL_LS = /["\\\u0000-\u001f\u2028\u2029]|<\//g

const NEEDS_ESCAPE = /["\\\u0000-\u001f]|<\//
const NEEDS_ESCAPE_LS = /["\\\u0000-\u001f\u2028\u2029]|<\//

export function jsonString(s: string, style: JsonStringStyle): string {
  // Most strings need no escaping; testing first skips the replace and its closure calls.
  if (!(style.escapeLineSeparators ? NEEDS_ESCAPE_LS : NEEDS_ESCAPE).test(s)) return '"' + s + '"'
  return (
    '"' +
    s.replace(style.escapeLineSeparators ? SPECIAL_LS : SPECIAL, (c) => {
      switch (c) {
        case '"':
          return '\\"'
        case '\\':
          return '\\\\'
        case '\n':
          return '\\n'
        case '\r':
          return '\\r'
        case '\t':
          return '\\t'
        case '\b':
          return '\\b'
        case '\f':
          return '\\f'
        case '</':
          return style.escapeCloseTag ? '<\\/' : '</'
        default: {
          const hex = c.charCodeAt(0).toString(16).padStart(4, '0')
          return '\\u' + (style.upperHex ? hex.toUpperCase() : hex)
        }
      }
    }) +
    '"'
  )
}
