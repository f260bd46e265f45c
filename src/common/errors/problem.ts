import { codes, type Failure } from './codes'

/** RFC 9457 problem details. */
export interface Problem {
  type: string
  title: string
  status: number
  detail: string
  code: string
  requestId: string
}

const TYPE_PREFIX = 'urn:platform:problem:'

export function toProblem(f: Failure, requestId: string): Problem {
  const entry = codes[f.code]
  return {
    type: TYPE_PREFIX + f.code,
    title: entry.title,
    status: f.status ?? entry.status,
    detail: f.detail,
    code: f.code,
    requestId
  }
}

export function renderProblemJson(p: Problem): string {
  return JSON.stringify(p)
}

/** RFC 9457 appendix B (XML format), namespace urn:ietf:rfc:7807, plus our two extension members. */
export function renderProblemXml(p: Problem): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<problem xmlns="urn:ietf:rfc:7807">' +
    `<type>${escapeXml(p.type)}</type>` +
    `<title>${escapeXml(p.title)}</title>` +
    `<status>${p.status}</status>` +
    `<detail>${escapeXml(p.detail)}</detail>` +
    `<code>${p.code}</code>` +
    `<requestId>${escapeXml(p.requestId)}</requestId>` +
    '</problem>'
  )
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }

export function escapeXml(s: string): string {
  // Characters not allowed in XML 1.0 at all are replaced rather than escaped.

  return s
    .replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd')
}

/** HTTP status lines uWS needs in full. */
export const STATUS_LINES: Record<number, string> = {
  200: '200 OK',
  204: '204 No Content',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  406: '406 Not Acceptable',
  409: '409 Conflict',
  410: '410 Gone',
  413: '413 Content Too Large',
  415: '415 Unsupported Media Type',
  422: '422 Unprocessable Content',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  502: '502 Bad Gateway',
  503: '503 Service Unavailable',
  504: '504 Gateway Timeout'
}

export function statusLine(status: number): string {
  return STATUS_LINES[status] ?? `${status} Status`
}
