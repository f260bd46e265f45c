// `npm start`: builds first when the build tools are installed (a clone after `npm ci`), then runs the
// platform in this process. After a production install (`npm ci --omit=dev` in a tree that was built
// before) there is nothing to build with, and dist/ runs as it is.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const main = join(root, 'dist', 'src', 'main.js')
if (existsSync(join(root, 'node_modules', 'typescript'))) {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' })
} else if (!existsSync(main)) {
  console.error(
    'npm start: no dist/ and no build tools. Build first (npm ci && npm run build), then a production install (npm ci --omit=dev) runs it.'
  )
  process.exit(1)
}
await import(pathToFileURL(main).href)
