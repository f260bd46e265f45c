import { ValueError } from '../errors'

/**
 * Text content as Woodstox 6.2 (the StAX writer under Jackson's XmlMapper) escapes it, read from
 * BufferingXmlWriter and checked against the Debian build: `&` and `<` always; CR, DEL, the C1
 * controls and U+FFFE/U+FFFF as hex references; other C0 controls cannot be written. `>` is escaped
 * only where it might close `]]>`, and what counts as "might" depends on the length of the text:
 * - under 12 characters, Woodstox walks the String: `>` first or after `]`;
 * - from 12 on, BaseStreamWriter copies the text into a 512-character buffer and walks each chunk;
 *   the walk restarts after every escaped character, so `>` is escaped at the start of a chunk, right
 *   after an escaped character, or after `]`.
 */
export function escapeWoodstoxText(s: string): string {
  if (!SPECIAL.test(s)) return s
  return s.length < MIN_ARRAYCOPY ? escapeShort(s) : escapeChunked(s)
}

// BaseStreamWriter.MIN_ARRAYCOPY and DEFAULT_COPYBUFFER_LEN.
const MIN_ARRAYCOPY = 12
const COPY_BUFFER = 512

const SPECIAL = /[\u0000-\u0008\u000b-\u001f&<>\u007f-\u009f\ufffe\uffff]/

/** The reference Woodstox writes for c, or null when c is written as it is; throws for C0 controls. */
function reference(c: number): string | null {
  if (c === 0x26) return '&amp;'
  if (c === 0x3c) return '&lt;'
  if (c < 0x20) {
    if (c === 0x09 || c === 0x0a) return null
    if (c === 0x0d) return '&#xd;'
    throw new ValueError(
      `Invalid white space character (0x${c.toString(16)}) in text to output (in xml 1.1, could output as a character entity)`
    )
  }
  if ((c >= 0x7f && c <= 0x9f) || c >= 0xfffe) return `&#x${c.toString(16)};`
  return null
}

function escapeShort(s: string): string {
  let out = ''
  let from = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    const ref = c === 0x3e ? (i === 0 || s.charCodeAt(i - 1) === 0x5d ? '&gt;' : null) : reference(c)
    if (ref === null) continue
    out += s.slice(from, i) + ref
    from = i + 1
  }
  return out + s.slice(from)
}

/**
 * A char[] (Jackson writes one through writeCharacters(char[], …)): one walk over the whole array,
 * restarting after every escaped character, whatever its length.
 */
export function escapeWoodstoxChars(s: string): string {
  return SPECIAL.test(s) ? escapeChunked(s, s.length) : s
}

function escapeChunked(s: string, chunkLength = COPY_BUFFER): string {
  let out = ''
  let from = 0
  for (let chunk = 0; chunk < s.length; chunk += chunkLength) {
    const end = Math.min(chunk + chunkLength, s.length)
    let start = chunk
    for (let i = chunk; i < end; i++) {
      const c = s.charCodeAt(i)
      const ref = c === 0x3e ? (i === start || s.charCodeAt(i - 1) === 0x5d ? '&gt;' : null) : reference(c)
      if (ref === null) continue
      out += s.slice(from, i) + ref
      from = i + 1
      start = i + 1
    }
  }
  return out + s.slice(from)
}
