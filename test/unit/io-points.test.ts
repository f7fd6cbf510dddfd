// I/O pause points (src/runner/io-points.ts) on a real loopback TCP server: what counts (a send
// is what one turn of the event loop writes to a socket), what is held until the parent's
// answer, and that bytes keep their order both ways.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { installIoPoints } from '../../src/runner/io-points.ts';

// The point question: recorded, answered when the test says.
const asked: string[] = [];
let answer: (() => void) | undefined;
const io = installIoPoints((name) => {
  asked.push(name);
  return new Promise<void>((resolve) => { answer = resolve; });
});
/** The next turn of the event loop: writes after it are a new send. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const go = async () => {
  for (let i = 0; i < 100 && !answer; i++) await sleep(10);
  const a = answer!;
  answer = undefined;
  a();
};

/** A server that records what it receives per connection and echoes each chunk back. */
async function echoServer(): Promise<{ port: number; got: string[]; server: net.Server }> {
  const got: string[] = [];
  const server = net.createServer((s) => {
    let mine = '';
    got.push('');
    const i = got.length - 1;
    s.on('data', (d) => { mine += d.toString(); got[i] = mine; s.write(d); });
    s.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as net.AddressInfo).port, got, server };
}

const servers: net.Server[] = [];
after(() => { for (const s of servers) s.close(); io.disarm(); });

async function connect(port: number): Promise<net.Socket> {
  const s = net.connect(port, '127.0.0.1');
  await once(s, 'connect');
  return s;
}

/** Reads from a socket until `text` has arrived (the echo of everything written). */
function reader(s: net.Socket): { text: () => string; until: (t: string) => Promise<void> } {
  let text = '';
  s.on('data', (d) => { text += d.toString(); });
  return {
    text: () => text,
    until: async (t) => {
      for (let i = 0; i < 300 && text !== t; i++) await sleep(10);
      assert.equal(text, t);
    },
  };
}

test('counts writes and reply chunks on server sockets only, inside an operation', async () => {
  const a = await echoServer();
  const b = await echoServer();
  servers.push(a.server, b.server);
  const before = await connect(a.port);
  before.write('x');               // before arm: not counted
  await sleep(50);
  io.arm([a.port], []);
  const other = await connect(b.port);
  const r = reader(before);
  before.write('y');               // armed, but outside any operation: not counted
  await r.until('xy');
  io.operation('release');
  before.write('1');
  before.write('2');               // the same turn: one send (a command a library writes in pieces)
  other.write('not counted');
  assert.equal(io.counts().sends, 1);
  await turn();
  before.write('3');               // a later turn: the 2nd send
  await r.until('xy123');
  assert.equal(io.counts().sends, 2);
  assert.ok(io.counts().replies >= 1, 'echo chunks counted');
  const replies = io.counts().replies;
  await sleep(50);
  assert.equal(io.counts().replies, replies, 'the other server\'s echo is not counted');
  assert.deepEqual(asked, [], 'no point is asked when none is wanted');
  io.operation('acquire');
  assert.deepEqual(io.counts(), { sends: 0, replies: 0 }, 'each operation counts from 0');
  before.destroy();
  other.destroy();
});

test('send:<op>:N holds that write and every later one on the socket until the answer, in order', async () => {
  const a = await echoServer();
  servers.push(a.server);
  io.arm([a.port], ['send:acquire:2']);
  io.operation('acquire');
  const s = await connect(a.port);
  const r = reader(s);
  asked.length = 0;
  s.write('a');
  await turn();
  assert.equal(s.write('b'), true, 'a held write looks buffered');
  s.write('c');                    // the rest of the 2nd send, queued behind its start
  await r.until('a');
  await sleep(100);
  assert.deepEqual(asked, ['send:acquire:2']);
  assert.equal(a.got.at(-1), 'a', 'nothing after the held write reached the server');
  await go();
  await r.until('abc');
  assert.equal(a.got.at(-1), 'abc');
  assert.equal(io.counts().sends, 2);
  assert.deepEqual(io.takeReached(), { acquire: { sends: 2, replies: io.counts().replies } }, 'the most one acquire reached');
  assert.deepEqual(io.takeReached(), {}, 'taken once');
  // An end behind a held write does not overtake it.
  io.arm([a.port], ['send:release:1']);
  io.operation('release');
  s.write('d');
  s.end();
  await sleep(50);
  await go();
  await once(s, 'close');
  assert.equal(a.got.at(-1), 'abcd');
});

test('reply:<op>:N holds that chunk and what follows it from the client until the answer', async () => {
  const a = await echoServer();
  servers.push(a.server);
  io.arm([a.port], ['reply:release:1']);
  io.operation('release');
  const s = await connect(a.port);
  const r = reader(s);
  asked.length = 0;
  s.write('one');
  for (let i = 0; i < 100 && asked.length === 0; i++) await sleep(10);
  assert.deepEqual(asked, ['reply:release:1']);
  s.write('two');               // its echo arrives behind the held chunk
  await sleep(100);
  assert.equal(r.text(), '', 'the client saw nothing yet');
  assert.equal(a.got.at(-1), 'onetwo', 'writes are not held by a held reply');
  await go();
  await r.until('onetwo');
  s.destroy();
});

test('a socket destroyed while its write is held drops the queue: callbacks get an error, nothing throws', async () => {
  const a = await echoServer();
  servers.push(a.server);
  io.arm([a.port], ['send:renew:1']);
  io.operation('renew');
  const s = await connect(a.port);
  asked.length = 0;
  const errs: (Error | null | undefined)[] = [];
  s.write('held', (e) => errs.push(e));
  s.write('queued', (e) => errs.push(e));
  await sleep(50);
  s.destroy();
  await once(s, 'close');
  await go();
  await sleep(50);
  assert.equal(errs.length, 2);
  assert.ok(errs.every((e) => e instanceof Error));
  assert.equal(a.got.at(-1), '', 'nothing reached the server');
});

test('a held send restarts the command timeout its library set just before it: the pause does not count against it', async () => {
  const a = await echoServer();
  servers.push(a.server);
  io.arm([a.port], ['send:release:1']);
  io.operation('release');
  const s = await connect(a.port);
  const r = reader(s);
  asked.length = 0;
  // As ioredis does: the command's timeout is set, then the command written, in one turn.
  let timedOut = false;
  const timeout = setTimeout(() => { timedOut = true; }, 150);
  s.write('DEL');
  assert.deepEqual(asked, ['send:release:1'], 'held, the question asked at once');
  // The process is stopped (SIGSTOP) for 300 ms: no timer can run; the parent's 'go' is read first on waking.
  const until = performance.now() + 300;
  while (performance.now() < until) { /* stopped */ }
  const a1 = answer!;
  answer = undefined;
  a1();
  await r.until('DEL');
  await sleep(60);
  assert.equal(timedOut, false, 'counted from when the command really went out, not from before the pause');
  await sleep(200);
  assert.equal(timedOut, true, 'and it still fires when no reply comes in its time');
  clearTimeout(timeout);
  // Without a pause point nothing is restarted: a timer set beside an unheld write runs its course.
  io.arm([a.port], []);
  io.operation('release');
  let fired = false;
  setTimeout(() => { fired = true; }, 100);
  s.write('X');
  const until2 = performance.now() + 150;
  while (performance.now() < until2) { /* busy */ }
  await sleep(10);
  assert.equal(fired, true);
  s.destroy();
});

test('a reply held while the client destroyed its socket is not delivered: no data after the destroy, its close still comes', async () => {
  const a = await echoServer();
  servers.push(a.server);
  io.arm([a.port], ['reply:acquire:1']);
  io.operation('acquire');
  const s = await connect(a.port);
  const r = reader(s);
  asked.length = 0;
  s.write('SET');
  for (let i = 0; i < 100 && asked.length === 0; i++) await sleep(10);
  assert.deepEqual(asked, ['reply:acquire:1']);
  // As node-redis does when its command fails: the socket destroyed, the reply still held.
  let closed = false;
  s.on('close', () => { closed = true; });
  s.destroy();
  await go();
  await sleep(50);
  assert.equal(r.text(), '', 'nothing delivered to a destroyed socket');
  assert.equal(closed, true, 'its close event is not lost behind the held reply');
});

/**
 * A real client process stopped (SIGSTOP) for 400 ms at `point` with a 100 ms timer running:
 * the parent writes 'go' before SIGCONT, as the pool does. What the client saw, in order.
 */
async function stoppedAt(point: string): Promise<string[]> {
  const server = net.createServer((c) => { c.on('error', () => {}); c.on('data', () => c.write('PONG')); });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const child = fork(fileURLToPath(new URL('../fixtures/io-paused-client.ts', import.meta.url)), [String((server.address() as net.AddressInfo).port), point],
    { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('message', async (m: { t: string; order?: string[] }) => {
      if (m.t === 'order') { resolve(m.order!); return; }
      child.kill('SIGSTOP');
      await sleep(400);
      child.send({ t: 'go' });
      child.kill('SIGCONT');
    });
  });
}

test('after a real stop, a reply held at reply:acquire:1 is read before the timer that ran out during the stop fires', async () => {
  assert.deepEqual(await stoppedAt('reply:acquire:1'), ['data:PONG', 'timer']);
});

test('after a real stop at send:acquire:1, the timer set with the command restarts when it goes out: it fires once, after the reply', async () => {
  assert.deepEqual(await stoppedAt('send:acquire:1'), ['data:PONG', 'timer']);
});
