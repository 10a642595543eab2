import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gcBeforeLargeCommits, gcBeforeLargeElementCopies, gcWhileStaging, releaseMemory, releaseMemoryLogged } from '../../src/app/release-memory';
import { Transaction } from '../../src/native';

const MiB = 1048576;


describe('releaseMemory', () => {
  it('frees dropped external buffers at once, without --expose-gc', () => {
    assert.equal(process.execArgv.includes('--expose-gc'), false, 'the test must run as production does');
    let held: Uint8Array[] | undefined = [];
    for (let i = 0; i < 64; i++) held.push(new Uint8Array(MiB).fill(i & 0xff));
    const before = process.memoryUsage().arrayBuffers;
    assert.ok(before >= 64 * MiB && held.length === 64);
    held = undefined;
    const r = releaseMemory(true);
    const after = process.memoryUsage().arrayBuffers;
    assert.ok(before - after >= 48 * MiB, `array buffers ${before / MiB} -> ${after / MiB} MiB`);
    assert.ok(r.gcMs >= 0);
    assert.equal(typeof r.trimmed, 'boolean');
  });

  it('logs what it released at debug level', () => {
    const lines: Array<{ o: Record<string, unknown>; msg: string }> = [];
    releaseMemoryLogged({ debug: (o: Record<string, unknown>, msg: string) => lines.push({ o, msg }) } as never, 'after a full sync');
    assert.equal(lines.length, 1);
    assert.equal(lines[0].msg, 'memory released');
    assert.equal(lines[0].o.when, 'after a full sync');
    assert.equal(typeof lines[0].o.gcMs, 'number');
    assert.equal((lines[0].o.heapTotalMiB as number[]).length, 2);
  });

  it('runs the release before large commits only', async () => {
    const order: string[] = [];
    const commit = gcBeforeLargeCommits(async (tx: Transaction) => { order.push(`commit ${tx.opCount} ops`); }, () => order.push('release'), 4096);
    const small = new Transaction().addTable('ip', 't');
    const large = new Transaction().addTable('ip', 't');
    for (let i = 0; i < 200; i++) large.addChain('ip', 't', { name: `chain-${i}` });
    assert.ok(small.serialize().length < 4096 && large.serialize().length >= 4096);
    await commit(small);
    await commit(large);
    assert.deepEqual(order, ['commit 1 ops', 'release', 'commit 201 ops']);
  });
});

describe('gcBeforeLargeElementCopies', () => {
  it('releases before a full sync copies elements of at least the threshold, not before smaller copies', () => {
    let released = 0;
    const hook = gcBeforeLargeElementCopies(() => released++, 4096);
    hook(4095);
    assert.equal(released, 0);
    hook(4096);
    hook(1 << 20);
    assert.equal(released, 2);
  });
});

describe('gcWhileStaging', () => {
  it('releases when the heap has grown by the threshold since the last release, whose heap is the next floor', () => {
    let heap = 1e12; // far above whatever floor an earlier release in this process left
    let released = 0;
    // A release frees 30 of whatever the heap holds.
    const wait = gcWhileStaging(() => { released++; heap -= 30; }, () => heap, 50);
    wait();
    assert.equal(released, 1);
    const floor = heap;
    heap = floor + 49;
    wait();
    assert.equal(released, 1, 'grown 49 of 50 since the release: none');
    heap = floor + 50;
    wait();
    assert.equal(released, 2, 'grown 50: released');
    assert.equal(heap, floor + 20);
    heap = floor + 69;
    wait();
    assert.equal(released, 2, 'the floor moved to the heap after the release');
  });
});
