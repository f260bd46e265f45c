import { basename, dirname, join } from 'node:path'

/** The project's root, seen from the compiled tests (dist/test/helpers) or from their sources (run through tsx). */
const ABOVE_TEST = join(__dirname, '..', '..')
export const ROOT = basename(ABOVE_TEST) === 'dist' ? dirname(ABOVE_TEST) : ABOVE_TEST
