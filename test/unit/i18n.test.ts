// Every message of the pages in every language lockpick speaks, every catalogue entry's Chinese
// words, the timeline page in Chinese, and how a language is chosen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MESSAGES } from '../../src/i18n/messages.ts';
import { ANOMALY_TYPES } from '../../checkers/anomaly-kinds.ts';
import { LANGS, asLang, fromAcceptLanguage, langOption, t } from '../../src/i18n/lang.ts';
import { DEMOS } from '../../src/demo/registry.ts';
import { PROSE_FIELDS, entryText } from '../../src/demo/entry.ts';
import { renderTimelineHtml, withReproduction } from '../../src/report/html.ts';
import { readHistory } from '../../src/history/index.ts';
import { checkHistory } from '../../checkers/index.ts';
import { checkResource, type ResourceEntry } from '../../checkers/resource.ts';
import { bigHistory, build, doubleHolderEvents, doubleHolderResult } from './report-fixtures.ts';

test('every message has every language, non-empty, with the same {placeholders}', () => {
  for (const [key, m] of Object.entries(MESSAGES)) {
    const byLang = m as Record<string, string>;
    assert.deepEqual(Object.keys(byLang).sort(), [...LANGS].sort(), `${key}: languages`);
    const holes = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((x) => x[1]).sort();
    for (const l of LANGS) {
      assert.ok(byLang[l]!.trim().length > 0, `${key}: ${l} is empty`);
      assert.deepEqual(holes(byLang[l]!), holes(byLang.en!), `${key}: ${l} fills other placeholders than en`);
    }
    assert.match(byLang['zh-CN']!, /[\u4e00-\u9fff]|^[A-Za-z0-9 :·{}–]+$/, `${key}: the zh-CN text is not Chinese`);
  }
});

test('every anomaly type a checker reports has its name in every language, the Chinese one saying what went wrong', () => {
  for (const type of ANOMALY_TYPES) {
    const m = (MESSAGES as Record<string, Record<string, string>>)[`anomaly.${type}`];
    assert.ok(m, `anomaly type ${type} has no name: add 'anomaly.${type}' to src/i18n/messages.ts`);
    // A name, then after the colon what happened: a reader of the Chinese page learns the failure from it.
    assert.match(m['zh-CN']!, /^[\u4e00-\u9fff]+：[\u4e00-\u9fff，、]{6,}$/, `anomaly.${type}: zh-CN is "名称：说明"`);
  }
  const names = Object.keys(MESSAGES).filter((k) => k.startsWith('anomaly.')).map((k) => k.slice('anomaly.'.length));
  assert.deepEqual(names.sort(), [...ANOMALY_TYPES].sort(), 'a name for a type no checker reports');
});

test('the Chinese words are the ones Chinese engineers use', () => {
  const zh = Object.values(MESSAGES).map((m) => m['zh-CN']).join('\n');
  for (const term of ['分布式锁', '栅栏令牌', '看门狗', '锁过期', '主从切换', '时钟跳变']) assert.ok(zh.includes(term), term);
});

test('a language from --lang, LOCKPICK_LANG or Accept-Language', () => {
  assert.equal(asLang('zh'), 'zh-CN');
  assert.equal(asLang('zh_CN'), 'zh-CN');
  assert.equal(asLang('zh-Hans-CN'), 'zh-CN');
  assert.equal(asLang('en-GB'), 'en');
  assert.equal(asLang('fr'), undefined);
  assert.equal(langOption('zh-CN', 'en'), 'zh-CN', 'the flag before the variable');
  assert.equal(langOption(undefined, 'zh'), 'zh-CN');
  assert.equal(langOption(undefined, undefined), undefined);
  assert.throws(() => langOption('fr', undefined), /--lang fr: not a language lockpick speaks/);
  assert.throws(() => langOption(undefined, 'de'), /LOCKPICK_LANG de/);
  assert.equal(fromAcceptLanguage('zh-CN,zh;q=0.9,en;q=0.8'), 'zh-CN');
  assert.equal(fromAcceptLanguage('fr-FR,fr;q=0.9,zh;q=0.5,en;q=0.8'), 'en', 'by q');
  assert.equal(fromAcceptLanguage('de'), 'en');
  assert.equal(fromAcceptLanguage(undefined), 'en');
  assert.equal(t('zh-CN', 'run.title', { lock: 'redlock' }), 'redlock 的测试运行');
});

test('every catalogue entry has its Chinese words for every prose field, in the terms Chinese engineers use', () => {
  const notProse = new Set(['name', 'expected', 'fixDemo', 'code', 'zh']);
  const zhAll: string[] = [];
  for (const d of DEMOS) {
    // A new prose field of DemoEntry must join PROSE_FIELDS (and so need its Chinese).
    for (const [k, v] of Object.entries(d)) if (!notProse.has(k)) assert.ok((PROSE_FIELDS as readonly string[]).includes(k) && typeof v === 'string', `${d.name}.${k}: not a prose field`);
    assert.ok(d.zh, `${d.name}: no zh`);
    for (const f of PROSE_FIELDS) {
      const zh = d.zh[f];
      assert.ok(zh.trim().length > 0, `${d.name}.zh.${f}: empty`);
      assert.match(zh, /[\u4e00-\u9fff]/, `${d.name}.zh.${f}: not Chinese`);
      assert.notEqual(zh, d[f], `${d.name}.zh.${f}: the English`);
      zhAll.push(zh);
    }
    assert.equal(entryText(d, 'zh-CN'), d.zh);
    assert.equal(entryText(d, 'en').title, d.title);
  }
  const zh = zhAll.join('\n');
  for (const term of ['分布式锁', '租约', '栅栏令牌', '看门狗', '主从切换', '时钟跳变', '网络分区', '进程暂停', 'GC 停顿', '误删他人的锁', '两个客户端同时持有锁', '信号量', '读写锁', '会话', '临时顺序节点', 'Redlock']) assert.ok(zh.includes(term), term);
  // Code, commands and key names stay as they are.
  for (const d of DEMOS) for (const cmd of ['SET', 'DEL', 'GETSET', 'WAIT', 'GET_LOCK', 'pg_try_advisory_lock', 'kv.delete']) {
    if (new RegExp(`\\b${cmd}\\b`).test(d.lock)) assert.match(d.zh!.lock, new RegExp(`\\b${cmd}\\b`), `${d.name}: ${cmd} kept`);
  }
  // Without Chinese words an entry falls back to its English.
  const { zh: _none, ...bare } = DEMOS[0]!;
  assert.equal(entryText(bare, 'zh-CN').story, DEMOS[0]!.story);
});

/** The visible fixed words of a timeline page: its headings, the legend, the reproduction line, the verdict and facts. */
function fixedWords(html: string): string {
  const parts = [...html.matchAll(/<(h1|h2|h3)[^>]*>([\s\S]*?)<\/\1>/g)].map((m) => m[2]!);
  parts.push(/<span class="legend">([\s\S]*?)<\/span><\/div>/.exec(html)?.[1] ?? '');
  parts.push(/<p class="reproduction">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? '', /<p class="facts">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? '', /<p class="cut">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? '');
  // Tags, file names, times and anomaly kinds are not words of the page.
  return parts.join('\n').replace(/<[^>]+>/g, ' ').replace(/\S+\.jsonl/g, ' ').replace(/\d[\d.,]*\s*ms/g, ' ');
}

test('a zh-CN timeline page has the Chinese headings, legend and story words and no English heading words; English stays English', async () => {
  const h = build(doubleHolderEvents());
  const en = renderTimelineHtml(h, doubleHolderResult(), { lock: 'set-px-del' }, { reproduction: 'reproduced in 3 of 3 runs' });
  const zh = renderTimelineHtml(h, doubleHolderResult(), { lock: 'set-px-del' }, { reproduction: 'reproduced in 3 of 3 runs', lang: 'zh-CN' });
  assert.match(en, /<html lang="en">/);
  assert.match(en, /<span class="verdict bad">INVALID<\/span>/);
  assert.ok(en.includes('1 anomaly (click one to zoom to it') && en.includes('<b>Replayed:</b>') && en.includes('two clients hold the lock at once'));
  assert.match(zh, /<html lang="zh-CN">/);
  assert.match(zh, /<span class="verdict bad">无效<\/span>/);
  assert.match(zh, /<span class="num">#1<\/span> <b class="atype">双重持有：两个客户端同时认为自己持有锁<\/b> — /, 'the anomaly named in Chinese before its message');
  assert.match(en, /<span class="num">#1<\/span> <b class="atype">double holder<\/b> — /);
  for (const w of ['1 个异常', '<b>重放：</b>', '两个客户端同时持有锁', '持有锁（客户端自己认为）', '整个运行：', '个客户端', '检查耗时']) assert.ok(zh.includes(w), w);
  const big = bigHistory(30000);
  const zhBig = renderTimelineHtml(big.h, big.r, undefined, { lang: 'zh-CN' });
  for (const w of ['窗口 1：', '概览：整个操作历史', '已经裁剪']) assert.ok(zhBig.includes(w), w);
  const english = /\b(anomal\w*|Window|Whole run|Overview|Replayed|INVALID|VALID|UNKNOWN|ops|processes|clients|lease|fault|held|stale|token|checked|axis|history)\b/i;
  for (const page of [zh, zhBig]) assert.doesNotMatch(fixedWords(page), english);
  assert.match(fixedWords(en), english, 'the same words are found on an English page');
  // The story's own words on the lanes: a real DEL-unlock counterexample (lease end, acquire in the gap, stale unlock) and the resource lane.
  const del = await readHistory('histories/timeline-del-pause.jsonl');
  const zhDel = renderTimelineHtml(del, checkHistory(del, { model: 'mutex' }), undefined, { lang: 'zh-CN' });
  for (const w of ['class="note n-lease-end"[^>]*>租约到期<', 'class="note n-gap-acquire"[^>]*>在 c3 租约过期后加锁<', '>✕ 误删他人的锁<']) assert.match(zhDel, new RegExp(w));
  assert.doesNotMatch(fixedWords(zhDel), english);
  assert.doesNotMatch(zhDel, />(lease ends|acquires in|✕ stale unlock)</);
  const fenced: ResourceEntry[] = [{ key: 'orders', seq: 0, op: 'write', client: 'c1', process: 0, prev: 1, accepted: false, token: 3, max: 4, value: 2, read: 1 }];
  const zhRes = renderTimelineHtml(h, doubleHolderResult(), undefined, { resource: checkResource(fenced, { orders: 1 }), resourceEntries: fenced, lang: 'zh-CN' });
  assert.match(zhRes, /class="note n-rejected"[^>]*>✕ p0 的写入被拒绝（令牌 3 &lt; 4）</);
  // A reproduction rate written into a zh-CN page later keeps its language.
  assert.ok(withReproduction(zh, 'measured').includes('<b>重放：</b> measured'));
  assert.ok(withReproduction(en, 'measured').includes('<b>Replayed:</b> measured'));
});
