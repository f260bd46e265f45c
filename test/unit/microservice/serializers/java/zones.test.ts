// The JDK's zone data as the serializers use it, without Java: the built-in UTC is the data's own,
// a zone's offsets and its last rule past 2100 (the differential tests hold all of it to Java's).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  javaZones,
  javaZone,
  requireJavaZone,
  UTC,
  javaZonesSource
} from '../../../../../src/microservice/serializers/java/zones'
import { parseXStreamDate, xstreamDate, parseJacksonDate } from '../../../../../src/microservice/serializers/java/dates'

test('the built-in UTC is the data row Java has for UTC', () => {
  const row = javaZones().find((z) => z.id === 'UTC')!
  assert.deepEqual(row.names, UTC.names)
  assert.equal(row.savingsMs, UTC.savingsMs)
  for (const t of [-6e13, 0, 1.7e12, 4.2e12, 2e14])
    for (const wall of [true, false]) assert.equal(row.raw(t, wall) + row.dst(t, wall), 0)
  assert.equal(javaZone('UTC'), UTC)
  assert.match(javaZonesSource(), /OpenJDK .* 17\.\d+.*tzdata 20\d\d[a-z]/)
})

test("a zone's offsets: its history, today's raw offset and no DST before 1900, its rule past 2100", () => {
  const berlin = requireJavaZone('Europe/Berlin')
  const h = 3_600_000
  assert.equal(berlin.raw(Date.UTC(2023, 0, 15), false), h)
  assert.equal(berlin.dst(Date.UTC(2023, 0, 15), false), 0)
  assert.equal(berlin.dst(Date.UTC(2023, 6, 15), false), h)
  assert.equal(berlin.raw(Date.UTC(1850, 6, 15), false) + berlin.dst(Date.UTC(1850, 6, 15), false), h)
  // 2150: the last Sundays of March and October, at 01:00 UTC.
  assert.equal(berlin.dst(Date.UTC(2150, 2, 29, 0, 59), false), 0)
  assert.equal(berlin.dst(Date.UTC(2150, 2, 29, 1, 0), false), h)
  assert.equal(berlin.dst(Date.UTC(2150, 9, 25, 0, 59), false), h)
  assert.equal(berlin.dst(Date.UTC(2150, 9, 25, 1, 0), false), 0)
  // By wall time, a skipped hour keeps no DST (ZoneInfo past its table).
  assert.equal(berlin.dst(Date.UTC(2150, 2, 29, 2, 30), true), 0)
  assert.throws(() => requireJavaZone('Europe/Berln'), /'Europe\/Berln' is not a time zone Java knows/)
})

test('dates in a zone: XStream writes its short names, reads them and refuses a skipped time', () => {
  const berlin = requireJavaZone('Europe/Berlin')
  assert.equal(xstreamDate(new Date(1_700_000_000_005), berlin), '2023-11-14 23:13:20.5 CET')
  assert.equal(xstreamDate(new Date(1_689_372_800_005), berlin), '2023-07-15 00:13:20.5 CEST')
  assert.equal(parseXStreamDate('2023-11-14 23:13:20.5 CET').getTime(), 1_700_000_000_005)
  assert.equal(parseXStreamDate('2023-11-14 22:13:20.5 cet').getTime(), 1_699_996_400_005)
  assert.throws(() => parseXStreamDate('2023-03-26 02:30:00.0 Europe/Paris'), /is not a date of the form/)
  assert.equal(parseJacksonDate('2023-11-14T23:13:20.005', berlin)!.getTime(), 1_700_000_000_005)
  assert.equal(parseJacksonDate('Tue, 14 Nov 2023 23:13:20 CET')!.getTime(), 1_700_000_000_000)
})
