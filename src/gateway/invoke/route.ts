/** /{microservice}/{service}/{method} → the three names, or null. Names are percent-decoded. */
export function parseRoute(url: string): [string, string, string] | null {
  if (url.charCodeAt(0) !== 0x2f) return null
  const a = url.indexOf('/', 1)
  if (a < 0) return null
  const b = url.indexOf('/', a + 1)
  if (b < 0) return null
  if (url.indexOf('/', b + 1) >= 0) return null
  let microservice = url.slice(1, a)
  let svc = url.slice(a + 1, b)
  let m = url.slice(b + 1)
  if (microservice === '' || svc === '' || m === '') return null
  if (url.includes('%')) {
    try {
      microservice = decodeURIComponent(microservice)
      svc = decodeURIComponent(svc)
      m = decodeURIComponent(m)
    } catch {
      return null
    }
  }
  return [microservice, svc, m]
}
