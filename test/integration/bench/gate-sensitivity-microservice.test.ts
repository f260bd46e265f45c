// time limit: 480 s: the gate's CPU part runs twice (the unchanged copy calibrates the slowdown, then
// the slowed copy is judged): over a minute on an idle 2-core machine, about twice that beside other work.
// The microservice host: 10 % more CPU per call fails the gate. Its CPU per call moves with the machine
// by more than that (its checks have a 12 % margin); the count of its per-call path's instructions does
// not, and fails. That the code as it is passes is CI's own gate step.
import { test } from 'node:test'
import { slowdownFailsTheGate } from '../../helpers/gate-sensitivity'

test("10 % more CPU in the microservice's per-call path fails the gate on its first attempt", () =>
  slowdownFailsTheGate('microservice', 10))
