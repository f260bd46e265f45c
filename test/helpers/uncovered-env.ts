/**
 * The environment without coverage, for a child whose work is measured or counted: c8 sets
 * NODE_V8_COVERAGE, which would make the child count its blocks (instruction counts doubled under
 * `npm test`). Deleting it is not enough: Node's spawn puts it back when the child's environment has
 * no such key; an empty value turns it off.
 */
export function uncovered(): NodeJS.ProcessEnv {
  return { ...process.env, NODE_V8_COVERAGE: '' }
}
