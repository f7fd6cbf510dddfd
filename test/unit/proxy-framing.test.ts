// The fault proxy's request framers (src/proxy/framing/): where each request begins, whatever
// the chunks the bytes arrive in, pipelined requests each found, a partial frame carried on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FRAMINGS } from '../../src/proxy/framing/index.ts';

const resp = (...args: string[]) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;

/** Request starts as offsets in the whole stream, feeding it in chunks cut at `cuts`. */
function startsIn(framing: string, stream: Buffer, cuts: number[]): number[] | undefined {
  const f = FRAMINGS.get(framing)!.create();
  const out: number[] = [];
  let from = 0;
  for (const to of [...cuts, stream.length]) {
    const s = f.push(stream.subarray(from, to));
    if (!s) return undefined;
    out.push(...s.map((x) => x + from));
    from = to;
  }
  return out;
}

/** Every way of cutting the stream in two and in three: the same starts (a start inside a request's header moves to the chunk's beginning). */
function checkAllCuts(framing: string, stream: Buffer, starts: number[]): void {
  assert.deepEqual(startsIn(framing, stream, []), starts, 'whole');
  for (let a = 1; a < stream.length; a++) {
    const got = startsIn(framing, stream, [a]);
    // A request counted in the chunk where its header is complete, at the chunk's start when its first bytes came earlier.
    assert.equal(got?.length, starts.length, `cut at ${a}: ${JSON.stringify(got)}`);
    for (let b = a + 1; b < stream.length; b += 3) assert.equal(startsIn(framing, stream, [a, b])?.length, starts.length, `cuts ${a},${b}`);
  }
  // One byte at a time: every request still counted once.
  assert.equal(startsIn(framing, stream, [...Array(stream.length - 1).keys()].map((i) => i + 1))?.length, starts.length, 'byte by byte');
}

test('resp: pipelined arrays and an inline command, in any chunks', () => {
  const a = resp('GET', 'k');
  const b = resp('DEL', 'k');
  const c = 'PING\r\n';
  const d = resp('SET', 'k', 'v\r\nwith crlf', 'PX', '1000');
  const stream = Buffer.from(a + b + c + d);
  checkAllCuts('resp', stream, [0, a.length, a.length + b.length, a.length + b.length + c.length]);
  assert.deepEqual(startsIn('resp', stream, []), [0, a.length, a.length + b.length, a.length + b.length + c.length]);
  // The DEL's start is found where it is in the chunk it arrives in.
  assert.deepEqual(startsIn('resp', stream, [a.length - 3]), [0, a.length, a.length + b.length, a.length + b.length + c.length]);
});

test('resp: a null bulk string and an empty array; a bad header stops framing for good', () => {
  assert.deepEqual(startsIn('resp', Buffer.from('*2\r\n$3\r\nGET\r\n$-1\r\n*0\r\n' + resp('DEL', 'x')), []), [0, 18, 22]);
  const f = FRAMINGS.get('resp')!.create();
  assert.equal(f.push(Buffer.from('*x\r\n')), undefined);
  assert.equal(f.push(Buffer.from(resp('GET', 'k'))), undefined);
});

test('resp: the command word of a request, array or inline', () => {
  const r = FRAMINGS.get('resp')!;
  assert.equal(r.command(Buffer.from(resp('del', 'k'))), 'DEL');
  assert.equal(r.command(Buffer.from('ping\r\n')), 'PING');
});

const mysqlPacket = (seq: number, body: Buffer) => Buffer.concat([Buffer.from([body.length & 0xff, (body.length >> 8) & 0xff, body.length >> 16, seq]), body]);

test('mysql: every packet is a request (the handshake response too), but a long packet\'s continuation', () => {
  const handshake = mysqlPacket(1, Buffer.alloc(40, 1));
  const q1 = mysqlPacket(0, Buffer.concat([Buffer.from([3]), Buffer.from('SELECT GET_LOCK("k", 0)')]));
  const q2 = mysqlPacket(0, Buffer.concat([Buffer.from([3]), Buffer.from('DELETE FROM locks')]));
  const stream = Buffer.concat([handshake, q1, q2]);
  checkAllCuts('mysql', stream, [0, handshake.length, handshake.length + q1.length]);
  // A 16 MB statement: its second packet (id 1) continues the first.
  const long = Buffer.concat([mysqlPacket(0, Buffer.concat([Buffer.from([3]), Buffer.alloc(0xffffff - 1, 0x20)])), mysqlPacket(1, Buffer.from(' ')), q2]);
  assert.deepEqual(startsIn('mysql', long, [5000, 0xffffff + 6]), [0, long.length - q2.length]);
  assert.equal(FRAMINGS.get('mysql')!.command(q2), 'DELETE');
  assert.equal(FRAMINGS.get('mysql')!.command(mysqlPacket(0, Buffer.from([0x0e]))), 'PING');
});

const pgMsg = (type: string, body: Buffer | string) => {
  const b = typeof body === 'string' ? Buffer.from(body + '\0') : body;
  const h = Buffer.alloc(5);
  h.write(type, 0, 'latin1');
  h.writeInt32BE(b.length + 4, 1);
  return Buffer.concat([h, b]);
};
const pgUntyped = (code: number, rest = Buffer.alloc(0)) => {
  const h = Buffer.alloc(8);
  h.writeInt32BE(8 + rest.length, 0);
  h.writeInt32BE(code, 4);
  return Buffer.concat([h, rest]);
};

test('postgres: startup after a refused SSLRequest, then a simple query and an extended batch', () => {
  const ssl = pgUntyped(80877103);
  const startup = pgUntyped(196608, Buffer.from('user\0postgres\0\0'));
  const pw = pgMsg('p', 'secret');
  const q = pgMsg('Q', 'SELECT pg_try_advisory_lock(1)');
  const batch = [pgMsg('P', Buffer.from('\0DELETE FROM locks WHERE k = $1\0\0\0')), pgMsg('B', Buffer.alloc(10)), pgMsg('E', Buffer.alloc(5)), pgMsg('S', Buffer.alloc(0))];
  const q2 = pgMsg('Q', 'select 1');
  const stream = Buffer.concat([ssl, startup, pw, q, ...batch, q2]);
  const at = (n: number) => [ssl, startup, pw, q, ...batch].slice(0, n).reduce((s, b) => s + b.length, 0);
  checkAllCuts('postgres', stream, [0, at(1), at(2), at(3), at(4), at(8)]);
  assert.equal(FRAMINGS.get('postgres')!.command(q), 'SELECT');
  assert.equal(FRAMINGS.get('postgres')!.command(batch[0]!), 'DELETE');
});

test('postgres: a link that turns to TLS is not framed', () => {
  const f = FRAMINGS.get('postgres')!.create();
  assert.deepEqual(f.push(pgUntyped(80877103)), [0]);
  assert.equal(f.push(Buffer.from([0x16, 3, 1, 0, 200, 1, 0, 0, 196])), undefined);
});

const zkFrame = (body: Buffer) => { const h = Buffer.alloc(4); h.writeInt32BE(body.length); return Buffer.concat([h, body]); };
const zkReq = (xid: number, type: number, rest = Buffer.alloc(6)) => { const h = Buffer.alloc(8); h.writeInt32BE(xid, 0); h.writeInt32BE(type, 4); return zkFrame(Buffer.concat([h, rest])); };

test('zookeeper: the connect request, requests counted, pings and auth not', () => {
  const connect = zkFrame(Buffer.alloc(44));
  const create = zkReq(1, 1);
  const ping = zkReq(-2, 11, Buffer.alloc(0));
  const del = zkReq(2, 2);
  const stream = Buffer.concat([connect, create, ping, del]);
  checkAllCuts('zookeeper', stream, [0, connect.length, connect.length + create.length + ping.length]);
  assert.equal(FRAMINGS.get('zookeeper')!.command(del), 'DELETE');
  assert.equal(FRAMINGS.get('zookeeper')!.command(ping), undefined);
  const f = FRAMINGS.get('zookeeper')!.create();
  f.push(connect);
  assert.equal(f.push(Buffer.from([0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 1])), undefined, 'a 2 GB frame is not ZooKeeper');
});

test('each protocol names the command that ends its session (not counted as an operation\'s send)', () => {
  const mysqlQuit = mysqlPacket(0, Buffer.from([0x01]));
  const pgTerminate = pgMsg('X', Buffer.alloc(0));
  const zkClose = zkReq(3, -11, Buffer.alloc(0));
  for (const [name, bytes] of [['resp', Buffer.from(resp('QUIT'))], ['mysql', mysqlQuit], ['postgres', pgTerminate], ['zookeeper', zkClose]] as const) {
    const f = FRAMINGS.get(name)!;
    const c = f.command(bytes);
    assert.ok(c !== undefined && f.closes.includes(c), `${name}: ${c}`);
  }
});

test('memcached text: command lines, a storage command\'s data block (CRLF inside it too), in any chunks', () => {
  const gets = 'gets r1-k0\r\n';
  const add = 'add r1-k0 0 2 5\r\nab\r\nc\r\n';      // 5 bytes of data that hold a CRLF
  const del = 'delete r1-k0\r\n';
  const cas = 'cas r1-k0 0 -1 2 77 noreply\r\nxy\r\n';
  const ms = 'ms r1-k0 3 T2\r\nabc\r\n';
  const bare = 'version\n';                          // memcached takes a bare LF too
  const parts = [gets, add, del, cas, ms, bare];
  const at = (n: number) => parts.slice(0, n).join('').length;
  checkAllCuts('memcached', Buffer.from(parts.join('')), [0, at(1), at(2), at(3), at(4), at(5)]);
  const mc = FRAMINGS.get('memcached')!;
  assert.equal(mc.command(Buffer.from(del)), 'DELETE');
  assert.equal(mc.command(Buffer.from(gets)), 'GETS');
  assert.ok(mc.closes.includes(mc.command(Buffer.from('quit\r\n'))!));
});

const mcBinary = (opcode: number, key: string, extras = 0, value = '') => {
  const h = Buffer.alloc(24);
  h[0] = 0x80; h[1] = opcode;
  h.writeUInt16BE(key.length, 2); h[4] = extras;
  h.writeUInt32BE(extras + key.length + value.length, 8);
  return Buffer.concat([h, Buffer.alloc(extras), Buffer.from(key + value)]);
};

test('memcached binary: a 24-byte header and its body, each a request; the text protocol on the same framer', () => {
  const get = mcBinary(0x00, 'r1-k0');
  const add = mcBinary(0x02, 'r1-k0', 8, 'v\r\n1');
  const del = mcBinary(0x04, 'r1-k0');
  const noop = mcBinary(0x0a, '');
  checkAllCuts('memcached', Buffer.concat([get, add, del, noop]), [0, get.length, get.length + add.length, get.length + add.length + del.length]);
  assert.equal(FRAMINGS.get('memcached')!.command(del), 'DELETE');
  assert.equal(FRAMINGS.get('memcached')!.command(mcBinary(0x17, '')), 'QUIT');
});

test('memcached: what is not its protocol stops framing for good (a storage command without its byte count, TLS)', () => {
  assert.equal(startsIn('memcached', Buffer.from('set k 0 0\r\nab\r\nget k\r\n'), []), undefined);
  assert.equal(startsIn('memcached', Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x0a]), []), undefined);
  const f = FRAMINGS.get('memcached')!.create();
  assert.equal(f.push(Buffer.from('add k 0 0 x\r\n')), undefined);
  assert.equal(f.push(Buffer.from('get k\r\n')), undefined);
});

/** Bytes a real client sent etcd (test/fixtures/http2/: client-to-server, captured through a TCP relay on 2026-11-27). */
const h2 = (name: string) => readFileSync(new URL(`../fixtures/http2/${name}`, import.meta.url));

/** HTTP/2 frames after the preface: offset, type, stream id. */
function h2Frames(b: Buffer): { at: number; type: number; stream: number }[] {
  const out = [];
  for (let i = 24; i + 9 <= b.length; i += 9 + b.readUIntBE(i, 3)) out.push({ at: i, type: b[i + 3]!, stream: b.readUInt32BE(i + 5) & 0x7fffffff });
  return out;
}

test('http2: one request per gRPC call (a new stream\'s HEADERS) in real etcdctl and python-etcd3 sessions, in any chunks', () => {
  // etcdctl put: one Put. python-etcd3 Lock acquire and release: LeaseGrant, Txn, Txn.
  for (const [file, calls] of [['etcdctl-put.bin', 1], ['python-etcd3-lock.bin', 3]] as const) {
    const b = h2(file);
    const starts = h2Frames(b).filter((f) => f.type === 1).map((f) => f.at);
    assert.equal(starts.length, calls, file);
    checkAllCuts('http2', b, starts);
  }
});

test('http2: a long-lived stream\'s later messages (etcdctl lock\'s lease keep-alives) are not requests', () => {
  const b = h2('etcdctl-lock.bin');
  const frames = h2Frames(b);
  const opened = [...new Set(frames.filter((f) => f.type === 1).map((f) => f.stream))];
  // A stream with more DATA frames than one message: the keep-alive stream went on sending.
  assert.ok(opened.some((s) => frames.filter((f) => f.type === 0 && f.stream === s).length > 1), JSON.stringify(frames));
  assert.deepEqual(startsIn('http2', b, []), frames.filter((f) => f.type === 1).map((f) => f.at));
  assert.equal(startsIn('http2', b, [])!.length, opened.length);
});

test('http2: not a cleartext HTTP/2 connection (TLS, HTTP/1.1): nothing counted', () => {
  assert.equal(startsIn('http2', Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'), []), undefined);
  assert.equal(startsIn('http2', Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, ...Array(40).fill(1)]), [10]), undefined);
  assert.equal(FRAMINGS.get('http2')!.command(h2('etcdctl-put.bin').subarray(33)), undefined);
});
