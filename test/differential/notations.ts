// What a client may write that a serializer never does: the same document with one site rewritten in
// another notation — numbers in every form Java's parsers take or refuse, whitespace where the writer
// puts none, character references and escapes, CDATA, comments, a declaration. Both readers get the
// rewritten text; they must agree on the value or both refuse it.
import fc from 'fast-check'

export interface Mutation {
  readonly kind: string
  readonly text: string
}

interface Site {
  readonly start: number
  readonly end: number
  readonly kind: 'number' | 'boolean' | 'text' | 'gap'
}

const DIGIT_BLOCKS = [0x660, 0x6f0, 0x966, 0x9e6, 0xff10, 0x1d7ce, 0x104a0]

function foreignDigits(s: string, block: number): string {
  return s.replace(/[0-9]/g, (c) => String.fromCodePoint(block + c.charCodeAt(0) - 48))
}

/** Forms of an integer token: what Integer.decode, Long.decode, Jackson and JSON take or refuse. */
export function integerForms(token: string): string[] {
  const n = BigInt(token)
  const sign = n < 0n ? '-' : ''
  const abs = n < 0n ? -n : n
  const hex = abs.toString(16)
  return [
    `+${abs}`,
    `0${abs}`,
    `00${token}`,
    `${sign}0x${hex}`,
    `${sign}0X${hex.toUpperCase()}`,
    `${sign}#${hex}`,
    `${sign}0${abs.toString(8)}`,
    `${token}.0`,
    `${token}.5`,
    `${token}e0`,
    `${token}E1`,
    ` ${token}`,
    `${token} `,
    `\t${token}\n`,
    `${token}L`,
    `${token}d`,
    `${token}_0`,
    `-0`,
    `${token}0000000000`,
    `${n + 4294967296n}`,
    `${n - 4294967296n}`,
    `${n + 18446744073709551616n}`,
    '2147483648',
    '-2147483649',
    '0x80000000',
    '0xffffffff',
    '-0x80000000',
    '9223372036854775808',
    '0x8000000000000000',
    '0b101',
    '',
    '-',
    '0x',
    'NaN',
    'Infinity',
    ...DIGIT_BLOCKS.map((b) => foreignDigits(token, b))
  ]
}

/** Forms of a decimal token: Double.parseDouble takes hex floats, a d/f suffix and surrounding space. */
export function decimalForms(token: string): string[] {
  const x = Number(token)
  const forms = [
    `+${token}`,
    ` ${token} `,
    `${token}d`,
    `${token}F`,
    `${x}`,
    `${x.toExponential()}`,
    `${x.toExponential().toUpperCase()}`,
    `0${token}`,
    'Infinity',
    '-Infinity',
    '+Infinity',
    'NaN',
    '-NaN',
    'infinity',
    '0x1p3',
    '0x1.8P1',
    '1e400',
    '-1e-400',
    '4.9e-325',
    '.5',
    '5.',
    '-.5e1',
    '1_0.5',
    foreignDigits(token, 0x660)
  ]
  if (/^-?\d+\.\d+$/.test(token)) forms.push(token.replace(/\.?0+$/, ''), token.replace(/^(-?)0\./, '$1.'))
  return forms
}

const BOOLEAN_FORMS = ['TRUE', 'True', 'FALSE', 'yes', '1', '0', ' true', 'false ', 't', '', 'truE', 'tRuE']

function sites(text: string, format: 'xml' | 'json'): Site[] {
  const out: Site[] = []
  const add = (re: RegExp, group: number, kindOf: (s: string) => Site['kind']): void => {
    for (const m of text.matchAll(re)) {
      const before = m.slice(1, group).reduce((n, g) => n + (g?.length ?? 0), 0)
      const start = m.index + before
      out.push({ start, end: start + m[group]!.length, kind: kindOf(m[group]!) })
    }
  }
  const classify = (s: string): Site['kind'] =>
    /^-?\d+$/.test(s)
      ? 'number'
      : /^-?[\d.]+(E-?\d+)?$|^NaN$|^-?Infinity$/.test(s)
        ? 'number'
        : /^(true|false)$/.test(s)
          ? 'boolean'
          : 'text'
  if (format === 'xml') {
    add(/(>)([^<>]+)(<\/)/g, 2, classify)
    add(/(=")([^"]*)(")/g, 2, classify)
    add(/(>)(\s*)(<)/g, 2, () => 'gap')
  } else {
    add(/([:[,])(-?\d[\d.eE+-]*)(?=[,\]}])/g, 2, classify)
    add(/([:[,])(true|false)(?=[,\]}])/g, 2, () => 'boolean')
    add(/(")((?:[^"\\]|\\.)*)(")/g, 2, () => 'text')
    add(/([:[,{])()/g, 2, () => 'gap')
  }
  return out
}

const GAPS = [' ', '\t', '\n', '\r\n', '  \n  ']

function textForms(s: string, format: 'xml' | 'json'): string[] {
  const chars = [...s]
  if (chars.length === 0) return format === 'xml' ? ['<![CDATA[]]>', '<!-- c -->'] : ['\\u0041']
  const forms: string[] = []
  for (let i = 0; i < Math.min(chars.length, 4); i++) {
    const c = chars[i]!
    const cp = c.codePointAt(0)!
    const before = chars.slice(0, i).join('')
    const after = chars.slice(i + 1).join('')
    if (format === 'xml') {
      if (c === '&' || c === '<') continue
      forms.push(`${before}&#${cp};${after}`, `${before}&#x${cp.toString(16)};${after}`)
      forms.push(`${before}&#X${cp.toString(16).toUpperCase()};${after}`, `${before}&#x0${cp.toString(16)};${after}`)
      if (c === '"' || c === "'" || c === '>')
        forms.push(`${before}${{ '"': '&quot;', "'": '&apos;', '>': '&gt;' }[c]}${after}`)
    } else {
      if (c === '\\') break
      const units = c.length === 2 ? [c.charCodeAt(0), c.charCodeAt(1)] : [cp]
      const esc = units.map((u) => `\\u${u.toString(16).padStart(4, '0')}`).join('')
      forms.push(`${before}${esc}${after}`, `${before}${esc.toUpperCase().replace(/\\U/g, '\\u')}${after}`)
      if (c === '/') forms.push(`${before}\\/${after}`)
    }
  }
  if (format === 'xml' && !s.includes(']]>') && !s.includes('&')) forms.push(`<![CDATA[${s}]]>`)
  if (format === 'xml') forms.push(` ${s}`, `${s}\n`, `${s}<!-- c -->`)
  return forms
}

/** One site of the text rewritten, or the document's ends changed; null when the text has no site. */
export function mutationArb(text: string, format: 'xml' | 'json'): fc.Arbitrary<Mutation> {
  const found = sites(text, format)
  const whole: Mutation[] =
    format === 'xml'
      ? [
          { kind: 'declaration', text: `<?xml version="1.0" encoding="UTF-8"?>${text}` },
          { kind: 'declaration', text: `<?xml version="1.1"?>\n${text}` },
          { kind: 'ends', text: ` \n${text}\n` },
          { kind: 'ends', text: `<!-- lead -->${text}` },
          // After the root's end tag: what a reader that stops there never sees, and one that reads on refuses.
          { kind: 'ends', text: `${text} x` },
          { kind: 'ends', text: `${text}<` },
          { kind: 'ends', text: `${text}<second/>` },
          { kind: 'ends', text: `${text}&#x0;` }
        ]
      : [
          { kind: 'ends', text: ` \n${text}\t` },
          { kind: 'ends', text: `${text} x` },
          { kind: 'ends', text: `\ufeff${text}` }
        ]
  if (found.length === 0) return fc.constantFrom(...whole)
  const at = fc.constantFrom(...found).chain((site) => {
    const s = text.slice(site.start, site.end)
    let forms: string[]
    switch (site.kind) {
      case 'number':
        forms = /^-?\d+$/.test(s) ? integerForms(s) : decimalForms(s)
        if (format === 'json') forms.push(`"${s}"`)
        break
      case 'boolean':
        forms = format === 'json' ? [`"${s}"`, s.toUpperCase(), '1', '0', 'null'] : BOOLEAN_FORMS
        break
      case 'gap':
        forms = format === 'xml' ? [...GAPS, '<!-- c -->', '<?pi x?>'] : GAPS
        break
      default:
        forms = textForms(s, format)
    }
    if (forms.length === 0) forms = [s]
    return fc.constantFrom(...forms).map((f) => ({
      kind: site.kind,
      text: text.slice(0, site.start) + f + text.slice(site.end)
    }))
  })
  return fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...whole) }, { weight: 6, arbitrary: at })
}
