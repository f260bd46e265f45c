import { EDGE_API_PREFIX, SWAGGER_PREFIX } from '../../common/contract/http-names'

/** One microservice as `GET /` on the gateway lists it. */
export interface IndexedMicroservice {
  name: string
  version: string | null
  available: boolean
  /** Why calls to it are refused now; null when available. */
  unavailable: string | null
  type: 'nativeApp' | 'servletApp'
  /** Its remotely enabled methods as `service/method` (empty until its catalog has arrived). */
  methods: string[]
  /** The path of its Swagger UI and description on the edge; null when the edge has none for it. */
  ui: string | null
  description: string | null
}

/** What `GET /` on the gateway answers: what is deployed, how to call it, where its descriptions are. */
export interface GatewayIndex {
  product: string
  call: string
  /** The edge's port (its UI index at `/`), or null when the edge is off. */
  edgePort: number | null
  microservices: IndexedMicroservice[]
}

/** The edge's paths for one microservice's description. */
export function descriptionPaths(name: string): { ui: string; description: string } {
  const base = `${SWAGGER_PREFIX}/${encodeURIComponent(name)}`
  return { ui: base, description: `${base}/openapi.json` }
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** The edge's `GET /`: a page of links to each microservice's Swagger UI. */
export function edgeIndexPage(names: readonly string[]): string {
  const items = names
    .map((n) => {
      const p = descriptionPaths(n)
      return `<li><a href="${p.ui}">${escapeHtml(n)}</a> (<a href="${p.description}">openapi.json</a>)</li>`
    })
    .join('\n')
  const list =
    names.length === 0
      ? '<p>No microservice with an API description is deployed. Upload one with <code>microservice upload &lt;zip_file&gt;</code>.</p>'
      : `<ul>\n${items}\n</ul>`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API descriptions</title>
<style>body{font-family:sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;line-height:1.5}code{background:#f3f3f3;padding:0 .2em}</style>
</head>
<body>
<h1>API descriptions</h1>
${list}
<p>Calls through this edge: <code>POST ${EDGE_API_PREFIX}/{microservice}/{service}/{method}</code>.</p>
</body>
</html>
`
}
