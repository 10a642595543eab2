// A program, not a test: run by priority-and-fairness.test.ts inside the control plane's namespace, it
// raises the Retry-After that API Priority and Fairness sends for one priority level and keeps it there.
// kube-apiserver does not send a fixed 1 s: per priority level, at the first rejection of each second,
// it doubles Retry-After (up to 32 s) when the level rejected at least 3 x Retry-After requests in the
// last Retry-After seconds, and lowers it by 1 when fewer than Retry-After
// (k8s.io/apiserver v0.37.2, pkg/util/flowcontrol/dropped_requests_tracker.go). So this sends GETs as
// the level's user, fast (8 a second) until Retry-After has reached TARGET, then slowly (1.25 a
// second, plus what the proxy's own rejected tries add: neither doubling nor lowering it). One JSON line
// per answer: {"at": ms since the epoch when sent, "code": HTTP status, "retryAfter": seconds or null}.
// The value within one second is the same for every request the level rejects then.
//   node retry-after-driver.js SERVER CA_FILE TOKEN_FILE URL_PATH TARGET
import * as fs from 'node:fs';
import * as https from 'node:https';

const [server, caFile, tokenFile, urlPath, target] = process.argv.slice(2);
const ca = fs.readFileSync(caFile);
const token = fs.readFileSync(tokenFile, 'utf8').trim();
const agent = new https.Agent({ keepAlive: true, maxSockets: 4 });
let last = 0;

function once(): void {
  const at = Date.now();
  const req = https.get(`${server}${urlPath}`, {
    ca, agent, headers: { Authorization: `Bearer ${token}`, 'User-Agent': 'kpn-retry-after-driver' }, timeout: 5000,
  }, (res) => {
    res.resume();
    const ra = res.headers['retry-after'];
    if (typeof ra === 'string' && /^\d+$/.test(ra)) last = Number(ra);
    console.log(JSON.stringify({ at, code: res.statusCode, retryAfter: typeof ra === 'string' ? Number(ra) : null }));
  });
  req.on('timeout', () => req.destroy());
  req.on('error', () => undefined);
  setTimeout(once, last >= Number(target) ? 800 : 125);
}
once();
process.on('SIGTERM', () => process.exit(0));
