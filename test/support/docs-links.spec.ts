import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = join(__dirname, '..', '..');
const pages = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => join('docs', name));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  let inCode = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = !inCode && /^#{1,6} (.+)$/.exec(line);
    if (heading) anchors.add(anchorOf(heading[1]));
  }
  return anchors;
}

/** Relative markdown links `[label](target)` outside code blocks. */
function linksOf(text: string): string[] {
  const withoutCode = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1])
    .filter((target) => !/^[a-z]+:/i.test(target));
}

describe('documentation links', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');

  it('should link every docs page from the README', () => {
    const linked = new Set(linksOf(readme).map((target) => target.split('#')[0]));
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });

  it.each(['README.md', ...pages])('should resolve every relative link and anchor in %s', (page) => {
    const text = readFileSync(join(root, page), 'utf8');
    const broken = linksOf(text).filter((target) => {
      const [path, anchor] = target.split('#');
      const file = path === '' ? join(root, page) : resolve(join(root, dirname(page)), path);
      if (!existsSync(file)) return true;
      return anchor !== undefined && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor);
    });
    expect(broken).toEqual([]);
  });
});
