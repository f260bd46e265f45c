// time limit: 480 s: the gate's CPU part runs twice (the unchanged copy calibrates the slowdown, then
// the slowed copy is judged): over a minute on an idle 2-core machine, about twice that beside other work.
// The gateway: 10 % more CPU per call fails the gate (its per-call paths' instruction counts, 5 %
// margin; its CPU per call over the ceiling's, 12 %). That the code as it is passes is CI's own gate step.
import { test } from 'node:test'
import { slowdownFailsTheGate } from '../../helpers/gate-sensitivity'

test("10 % more CPU in the gateway's per-call path fails the gate on its first attempt", () =>
  slowdownFailsTheGate('gateway', 10))
