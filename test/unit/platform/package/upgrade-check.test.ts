// The upload check: the same version again or an older one takes --force. Versions are ordered by
// the one rule in src/common/contract/semver.ts (its own tests are test/unit/common/contract/semver.test.ts).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { versionRefusal } from '../../../../src/platform/package/upgrade-check'

test('an upload is refused only over the same or a newer running version', () => {
  assert.equal(versionRefusal('orders', '1.0.0', null), null)
  assert.equal(versionRefusal('orders', '1.0.1', '1.0.0'), null)
  assert.match(versionRefusal('orders', '1.0.0', '1.0.0')!, /^orders 1\.0\.0 is deployed already; .*--force$/)
  assert.match(
    versionRefusal('orders', '1.0.0', '1.1.0', ' on http://n1')!,
    /^orders 1\.1\.0 is deployed on http:\/\/n1, newer than 1\.0\.0; .*rollback orders/
  )
})

test('SemVer precedence: a release goes over its pre-release, another build of it is the same version', () => {
  assert.equal(versionRefusal('orders', '1.0.0', '1.0.0-rc.1'), null)
  assert.equal(versionRefusal('orders', '1.0.0-rc.10', '1.0.0-rc.2'), null)
  assert.match(versionRefusal('orders', '1.0.0-rc.1', '1.0.0')!, /newer than 1\.0\.0-rc\.1/)
  assert.match(versionRefusal('orders', '1.0.0+b2', '1.0.0')!, /is deployed already/)
})
