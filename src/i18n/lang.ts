// The languages lockpick's pages speak (English, Simplified Chinese) and how one is chosen:
// --lang, else LOCKPICK_LANG, else (in `lockpick serve`) the browser's Accept-Language.
// Messages are in ./messages.ts, each in every language (test/unit/i18n.test.ts).
import { UsageError } from '../errors.ts';
import { MESSAGES, type MessageKey } from './messages.ts';

export const LANGS = ['en', 'zh-CN'] as const;
export type Lang = typeof LANGS[number];

/** A language tag as a user writes it (zh, zh-cn, zh_CN, zh-Hans, en-US) → one of LANGS, or undefined. */
export function asLang(tag: string | undefined): Lang | undefined {
  const t = tag?.trim().toLowerCase().replace('_', '-');
  if (!t) return undefined;
  if (t === 'zh' || t === 'zh-cn' || t === 'zh-hans' || t.startsWith('zh-hans-') || t === 'zh-sg') return 'zh-CN';
  if (t === 'en' || t.startsWith('en-')) return 'en';
  return undefined;
}

/** --lang or LOCKPICK_LANG (the flag first); a value neither names is refused (exit 2); neither given: undefined. */
export function langOption(flag: string | undefined, env: string | undefined = process.env.LOCKPICK_LANG): Lang | undefined {
  for (const [where, v] of [['--lang', flag], ['LOCKPICK_LANG', env]] as const) {
    if (v === undefined || v === '') continue;
    const l = asLang(v);
    if (!l) throw new UsageError(`${where} ${v}: not a language lockpick speaks\n  fix: give ${LANGS.join(' or ')}`);
    return l;
  }
  return undefined;
}

/** The browser's Accept-Language: the first language (by q) lockpick speaks, else English. */
export function fromAcceptLanguage(header: string | undefined): Lang {
  const tags = (header ?? '').split(',').map((part, i) => {
    const [tag, ...params] = part.trim().split(';');
    const q = Number(params.find((p) => p.trim().startsWith('q='))?.trim().slice(2) ?? '1');
    return { tag: tag ?? '', q: Number.isFinite(q) ? q : 0, i };
  }).filter((x) => x.q > 0).sort((a, b) => b.q - a.q || a.i - b.i);
  for (const x of tags) { const l = asLang(x.tag); if (l) return l; }
  return 'en';
}

/** A message in `lang`, with {name} replaced by vars[name]. */
export function t(lang: Lang, key: MessageKey, vars: Record<string, string | number> = {}): string {
  return MESSAGES[key][lang].replace(/\{(\w+)\}/g, (m, k: string) => (Object.hasOwn(vars, k) ? String(vars[k]) : m));
}

/** Every message in `lang`, for a page's own script. */
export function messagesFor(lang: Lang, keys: readonly MessageKey[]): Record<string, string> {
  return Object.fromEntries(keys.map((k) => [k, MESSAGES[k][lang]]));
}

/** An anomaly type's name in `lang` (messages 'anomaly.<type>'), or undefined for a type this build does not know (an older results.json). */
export function anomalyName(lang: Lang, type: string): string | undefined {
  const key = `anomaly.${type}`;
  return Object.hasOwn(MESSAGES, key) ? t(lang, key as MessageKey) : undefined;
}
