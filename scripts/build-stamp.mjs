// When dist/ was last built, and when its sources last changed: `npm start` builds only when a source
// is newer than the stamp that scripts/build.mjs writes at the end of a build.
import { readdirSync, statSync, existsSync } from 'node:fs'
import { join } from 'node:path'

export const BUILD_STAMP = join('dist', '.build-stamp')
const SOURCES = ['src', 'workers', 'proto', 'examples', 'test', 'bench', 'tsconfig.json', 'package-lock.json']

/** The newest modification time (ms) among the files the build reads. */
export function newestSource(root) {
  let newest = 0
  const visit = (p) => {
    if (!existsSync(p)) return
    const st = statSync(p)
    if (st.isDirectory()) {
      for (const name of readdirSync(p)) if (name !== 'generated' && name !== 'node_modules') visit(join(p, name))
    } else if (st.mtimeMs > newest) newest = st.mtimeMs
  }
  for (const s of SOURCES) visit(join(root, s))
  return newest
}
