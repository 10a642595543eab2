// readBody on its own: an answer's body is joined and decoded once, however its stream ends.
import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { PassThrough } from 'node:stream';
import { readBody, type PendingResponse } from '../../src/k8s/api-request';

const limits = { what: 'GET /x', idleMs: 5_000, totalMs: 5_000, maxBytes: 1 << 20 };

function pendingFor(stream: PassThrough): PendingResponse {
  let aborted = false;
  return { response: Promise.resolve(stream as unknown as http.IncomingMessage), abort: (e) => { aborted = true; stream.destroy(e); }, isAborted: () => aborted };
}

describe('readBody', () => {
  it("joins and decodes the body once when 'close' follows 'end'", async () => {
    const res = Object.assign(new PassThrough(), { complete: true });
    const concat = mock.method(Buffer, 'concat');
    try {
      const closed = new Promise((r) => res.once('close', r));
      const body = readBody(res as unknown as http.IncomingMessage, pendingFor(res), limits);
      res.write('{"items":');
      res.end('[1,2,3]}');
      assert.equal(await body, '{"items":[1,2,3]}');
      await closed;
      assert.equal(concat.mock.callCount(), 1);
    } finally {
      concat.mock.restore();
    }
  });

  it('fails when the connection closes before the answer is complete', async () => {
    const res = Object.assign(new PassThrough(), { complete: false });
    const body = readBody(res as unknown as http.IncomingMessage, pendingFor(res), limits);
    res.write('{"items":');
    res.destroy();
    await assert.rejects(body, /GET \/x: connection closed before the answer was complete/);
  });
});
