// The command word read from the bytes a client library hands its socket (src/runner/command-word.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandWord } from '../../src/runner/command-word.ts';

const resp = (...args: string[]) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
const mysqlQuery = (sql: string) => {
  const body = Buffer.concat([Buffer.from([0x03]), Buffer.from(sql)]);
  return Buffer.concat([Buffer.from([body.length & 0xff, (body.length >> 8) & 0xff, body.length >> 16, 0]), body]);
};

test('Redis RESP commands, as a string (ioredis) or a Buffer (node-redis), upper-cased', () => {
  assert.equal(commandWord(resp('del', 'lock:k')), 'DEL');
  assert.equal(commandWord(Buffer.from(resp('EVALSHA', 'abc', '1', 'k'))), 'EVALSHA');
  assert.equal(commandWord(Buffer.from(resp('SET', 'k', 'v', 'NX', 'PX', '800'))), 'SET');
});

test('a MySQL COM_QUERY packet gives its statement\'s first word', () => {
  assert.equal(commandWord(mysqlQuery('  delete FROM locks WHERE id = 1')), 'DELETE');
  assert.equal(commandWord(mysqlQuery('SELECT GET_LOCK(?, 0)')), 'SELECT');
});

test('anything it cannot read for sure gives undefined', () => {
  for (const chunk of [undefined, 42, '', 'PING\r\n', Buffer.from([0x16, 3, 1, 0, 5, 1]), resp('\u0000bin'), '*1\r\n$999\r\n', Buffer.from([5, 0, 0, 1, 3, 0x53])]) {
    assert.equal(commandWord(chunk), undefined, JSON.stringify(String(chunk)));
  }
});
