// modelSink: which watcher events ask for a sync, and what starts the runner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1EndpointSlice, V1Node, V1Service } from '@kubernetes/client-node';
import { modelSink } from '../../src/app/model-sink';

function setup(taken: boolean) {
  const calls: string[] = [];
  const took = (what: string) => () => { calls.push(what); return taken; };
  const sink = modelSink({
    state: { onService: took('state.onService'), onEndpointSlice: took('state.onEndpointSlice'), onNode: took('state.onNode'), onServiceCIDRs: took('state.onServiceCIDRs') },
    health: { syncNode: () => calls.push('health.syncNode') },
    queued: (scope) => calls.push(`queued ${scope ?? 'model'}`),
    runner: { start: () => calls.push('runner.start'), run: () => calls.push('runner.run') },
    started: () => calls.push('started'),
    log: { info: () => undefined },
  });
  return { sink, calls };
}

const svc = {} as V1Service;
const slice = {} as V1EndpointSlice;
const node = {} as V1Node;

test('a change the model takes is queued and asks for a sync; topology and Service CIDR changes concern every family (upstream Runner.OnTopologyChange, OnServiceCIDRsChanged)', () => {
  const { sink, calls } = setup(true);
  sink.onService('add', svc);
  sink.onEndpointSlice('update', slice);
  sink.onServiceCIDRs?.(['10.96.0.0/12']);
  assert.deepEqual(calls, [
    'state.onService', 'queued model', 'runner.run',
    'state.onEndpointSlice', 'queued model', 'runner.run',
    'state.onServiceCIDRs', 'queued all', 'runner.run',
  ]);
});

test('a change the model ignores asks for nothing', () => {
  const { sink, calls } = setup(false);
  sink.onService('update', svc);
  sink.onNamespaceDisabledChange?.('shop', true);
  assert.deepEqual(calls, ['state.onService']);
});

test('the Node goes to the health check first, whether or not the model takes it', () => {
  for (const taken of [true, false]) {
    const { sink, calls } = setup(taken);
    sink.onNode(node);
    assert.deepEqual(calls, taken ? ['health.syncNode', 'state.onNode', 'queued all', 'runner.run'] : ['health.syncNode', 'state.onNode']);
  }
});

test('the first complete list starts the runner and asks for a sync', () => {
  const { sink, calls } = setup(false);
  sink.onSynced();
  assert.deepEqual(calls, ['started', 'runner.start', 'runner.run'], 'upstream Runner.Run stamps every family\'s last_queued as its loop starts');
});
