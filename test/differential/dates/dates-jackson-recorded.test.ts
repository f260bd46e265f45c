// The Jackson date tests (dates-cases.ts) asked of Java's recorded answers (dates-answers.jsonl.gz, kept
// current by dates.test.ts against the live oracle): the same checks without a JVM, fast enough to run
// for each of the date and zone rules' mutants (the mutation module `dates`, docs/development.md).
// XStream's are in dates-xstream-recorded.test.ts: a file is what Stryker runs for a mutant it reaches.
import { RecordedAnswers } from '../../helpers/oracle'
import { dateTests } from './dates-cases'
import { readRecording } from './dates-answers'

dateTests(() => new RecordedAnswers(readRecording(), 'dates-answers.jsonl.gz'), 'Jackson')
