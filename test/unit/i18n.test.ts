// Every message of the pages in every language lockpick speaks, and how a language is chosen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MESSAGES } from '../../src/i18n/messages.ts';
import { LANGS, asLang, fromAcceptLanguage, langOption, t } from '../../src/i18n/lang.ts';

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
