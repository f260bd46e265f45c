import {
  WOODSTOX_11_NAME_CHAR,
  WOODSTOX_11_NAME_START,
  WOODSTOX_NAME_CHAR,
  WOODSTOX_NAME_START
} from './generated/woodstox-names'

const ASCII_NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/

/** `c` in a table of [from, to] pairs in order (a binary search over the pairs). */
function inRanges(table: readonly number[], c: number): boolean {
  let lo = 0
  let hi = (table.length >> 1) - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (c < table[2 * mid]!) hi = mid - 1
    else if (c > table[2 * mid + 1]!) lo = mid + 1
    else return true
  }
  return false
}

function isStart(c: number, xml11 = false): boolean {
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f
  return c > 0xffff || inRanges(xml11 ? WOODSTOX_11_NAME_START : WOODSTOX_NAME_START, c)
}

function isNameChar(c: number, xml11 = false): boolean {
  if (c < 0x80) return isStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e
  return c > 0xffff || inRanges(xml11 ? WOODSTOX_11_NAME_CHAR : WOODSTOX_NAME_CHAR, c)
}

/**
 * A name without a colon as Woodstox reads it in an XML 1.0 document, or a 1.1 one (its own tables, generated into
 * generated/woodstox-names.ts): Jackson's XmlMapper writes any map key as an element name, and what its
 * parser cannot read back must be refused on reading here too.
 */
export function isWoodstoxNcName(name: string, xml11 = false): boolean {
  // Most names are plain ASCII; only the others need the tables, character by character.
  if (ASCII_NAME.test(name)) return true
  let first = true
  for (const ch of name) {
    const c = ch.codePointAt(0)!
    if (first ? !isStart(c, xml11) : !isNameChar(c, xml11)) return false
    first = false
  }
  return !first
}

/**
 * A UTF-16 unit outside the surrogates as the same XML 1.0 (4th edition) tables take it in a name,
 * first or further on: the test XStream's name coder makes of each unit of a Java name.
 */
export function isXml10NameUnit(unit: number, first: boolean): boolean {
  if (unit >= 0xd800 && unit <= 0xdfff) return false
  return first ? isStart(unit) : isNameChar(unit)
}
