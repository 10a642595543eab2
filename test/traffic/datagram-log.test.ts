// The UDP stream's log as data (datagram-log.ts): what the black-hole tests' verdicts rest on.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { firstAnswerFrom, lastAnswerFrom, outcome, outcomeCounts, parseDatagramLog, sentBetween } from './datagram-log';

describe('parseDatagramLog', () => {
  it('pairs answers with their datagrams by sequence number, whatever order the lines came in', () => {
    const log = parseDatagramLog(['READY', 'R 0 pod0 1005', 'S 0 1000', 'S 1 1015', 'R 1 pod1 1020']);
    assert.deepEqual(log.datagrams, [
      { seq: 0, sentAt: 1000, answeredBy: 'pod0', answeredAt: 1005 },
      { seq: 1, sentAt: 1015, answeredBy: 'pod1', answeredAt: 1020 },
    ]);
    assert.deepEqual(log.otherErrors, []);
    assert.equal(log.end, undefined, 'END is not a datagram line; absent when the client did not print it');
    assert.equal(parseDatagramLog(['S 0 1000', 'END gave-up']).end, 'gave-up');
  });

  it('blames an ECONNREFUSED on the latest datagram sent before it that has no outcome', () => {
    // 1 is answered late (after 2 was sent); the reject at 1036 is 2's; 3 gets nothing.
    const log = parseDatagramLog(['S 0 1000', 'E ECONNREFUSED 1002', 'S 1 1015', 'S 2 1030', 'R 1 pod0 1033', 'E ECONNREFUSED 1036', 'S 3 1045']);
    assert.deepEqual(log.datagrams.map(outcome), ['refused', 'pod0', 'refused', 'silent']);
    assert.equal(log.datagrams[2].refusedAt, 1036);
  });

  it('counts a send that failed with the pending reject as the previous datagram\'s reject, and as no datagram', () => {
    const log = parseDatagramLog(['S 0 1000', 'F 1 ECONNREFUSED 1015', 'S 2 1030']);
    assert.deepEqual(log.datagrams.map((d) => [d.seq, outcome(d)]), [[0, 'refused'], [2, 'silent']]);
  });

  it('reports other errors, rejects with nothing to blame and answers to unknown datagrams', () => {
    const log = parseDatagramLog(['E ECONNREFUSED 999', 'S 0 1000', 'E EHOSTUNREACH 1001', 'R 7 pod0 1002', 'R ? garbage 1003']);
    assert.equal(log.otherErrors.length, 4, log.otherErrors.join('; '));
    assert.deepEqual(log.datagrams.map(outcome), ['silent']);
  });
});

describe('the questions asked of a log', () => {
  const log = parseDatagramLog([
    'S 0 1000', 'R 0 pod0 1001', 'S 1 1015', 'R 1 pod0 1016', 'S 2 1030', 'E ECONNREFUSED 1031',
    'S 3 1045', 'R 3 pod1 1046', 'S 4 1060', 'R 4 pod1 1061', 'S 5 1075',
  ]);

  it('finds the last and first answers of a pod', () => {
    assert.equal(lastAnswerFrom(log, 'pod0')?.seq, 1);
    assert.equal(lastAnswerFrom(log, 'pod2'), undefined);
    assert.equal(firstAnswerFrom(log, 'pod1', 0)?.seq, 3);
    assert.equal(firstAnswerFrom(log, 'pod1', 1050)?.seq, 4);
  });

  it('selects datagrams by send time and counts their outcomes', () => {
    assert.deepEqual(sentBetween(log, 1015, 1060).map((d) => d.seq), [1, 2, 3]);
    assert.deepEqual(outcomeCounts(log.datagrams), { pod0: 2, refused: 1, pod1: 2, silent: 1 });
  });
});
