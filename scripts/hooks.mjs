// `npm ci` and `npm install` run this (the prepare script): in a git clone, git's hooks are taken from
// .githooks/ (the pre-commit hook runs the fast checks on what is staged, CONTRIBUTING.md). Outside a
// clone (a tarball, the image's build), or without git, it does nothing and never fails the install.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
if (existsSync(join(root, '.git')) && existsSync(join(root, '.githooks'))) {
  try {
    execFileSync('git', ['config', 'core.hooksPath', '.githooks'], { cwd: root, stdio: 'ignore' })
  } catch {
    // No git here: nothing to hook into.
  }
}
