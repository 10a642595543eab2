// shutDown: the order parts are closed in, what was never opened, and a step that fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shutDown, type OpenedParts } from '../../src/app/shutdown';

function recordingParts(failing?: string): { parts: OpenedParts; closed: string[] } {
  const closed: string[] = [];
  const step = (name: string) => () => {
    closed.push(name);
    if (name === failing) throw new Error(`${name} failed`);
  };
  const asyncStep = (name: string) => async () => step(name)();
  const server = (name: string) => ({ port: 1, close: asyncStep(name) });
  return {
    closed,
    parts: {
      nft: { close: step('nft') },
      guard: { stop: step('guard') },
      watcher: { stop: step('watcher') },
      runner: { stop: asyncStep('runner') },
      serviceHealth: { closeAll: asyncStep('serviceHealth') },
      servers: [server('healthz'), server('metrics')],
    },
  };
}

test('closes the sources of work first and the nftables socket last', async () => {
  const { parts, closed } = recordingParts();
  await shutDown(parts);
  assert.deepEqual(closed, ['guard', 'watcher', 'runner', 'serviceHealth', 'healthz', 'metrics', 'nft']);
});

test('closes only what start-up opened', async () => {
  const { parts, closed } = recordingParts();
  await shutDown({ nft: parts.nft, servers: [parts.servers[0]] });
  assert.deepEqual(closed, ['healthz', 'nft']);
});

test('a failing step does not keep the later ones from running, and its error is thrown', async () => {
  const { parts, closed } = recordingParts('runner');
  await assert.rejects(shutDown(parts), /runner failed/);
  assert.deepEqual(closed, ['guard', 'watcher', 'runner', 'serviceHealth', 'healthz', 'metrics', 'nft']);
});
