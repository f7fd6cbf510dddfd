// Every relative link in README.md, ARCHITECTURE.md and docs/*.md points at a file or folder
// of the repository, and a `#anchor` into a Markdown page at one of its headings (as GitHub
// names them): moving a section between pages must not leave a link behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const PAGES = ['README.md', 'ARCHITECTURE.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

/** The page's text with its fenced code blocks blanked (a link-looking line in code is not a link), lines kept in place. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ''));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function anchorOf(heading: string): string {
  return heading.trim().toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page offers: its headings' (a repeated one gets -1, -2, ...). */
function anchors(page: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of prose(readFileSync(page, 'utf8')).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const a = anchorOf(m[1]!);
    const n = seen.get(a) ?? 0;
    seen.set(a, n + 1);
    out.add(n === 0 ? a : `${a}-${n}`);
  }
  return out;
}

/** The relative links of a page: [text](target) and [ref]: target, without web and mail addresses. */
function links(text: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  const body = prose(text);
  for (const m of body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|^\s*\[[^\]]+\]:\s*(\S+)/gm)) {
    const target = m[1] ?? m[2]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;   // https:, mailto:
    out.push({ target, line: body.slice(0, m.index).split('\n').length });
  }
  return out;
}

test('the anchor of a heading is the one GitHub gives it', () => {
  assert.equal(anchorOf('One search on many machines: shards'), 'one-search-on-many-machines-shards');
  assert.equal(anchorOf('Asking for fault-space coverage: `--min-coverage`'), 'asking-for-fault-space-coverage---min-coverage');
  assert.equal(anchorOf('I/O points in the fault proxy (clients no hook sees)'), 'io-points-in-the-fault-proxy-clients-no-hook-sees');
});

test('every relative link in README.md, ARCHITECTURE.md and docs/*.md resolves, anchors included', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const page of PAGES) {
    const abs = join(ROOT, page);
    for (const { target, line } of links(readFileSync(abs, 'utf8'))) {
      checked++;
      const [file, anchor] = target.split('#', 2) as [string, string | undefined];
      const to = file === '' ? abs : resolve(dirname(abs), decodeURIComponent(file));
      const where = `${page}:${line}: ${target}`;
      if (relative(ROOT, to).startsWith('..')) { broken.push(`${where}: points outside the repository`); continue; }
      if (!existsSync(to)) { broken.push(`${where}: no such file`); continue; }
      if (anchor !== undefined && to.endsWith('.md') && statSync(to).isFile() && !anchors(to).has(anchor)) {
        broken.push(`${where}: ${relative(ROOT, to)} has no heading with anchor #${anchor}`);
      }
    }
  }
  assert.ok(checked > 50, `only ${checked} links found: the link pattern no longer reads the pages`);
  assert.deepEqual(broken, []);
});
