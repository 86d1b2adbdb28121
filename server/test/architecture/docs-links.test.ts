import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The docs name files that exist. Checked in README.md, CONTRIBUTING.md and docs/**: every
 * relative Markdown link, and every `code span` that reads as a path of ours (it ends in a source
 * or document extension, or its first folder is one of the repository's or of server/src). A
 * path resolves relative to the document, to the repository, or as the tail of any file's or
 * folder's path (docs shorten `server/src/payments/x.ts` to `payments/x.ts` or `x.ts`).
 * A file a decision records as gone is written "`old/path.ts` (removed ...)" and is not checked.
 * Not ours, so not checked: packages (`@scope/name`), media types, the running service's data
 * (`.data/`, build `artifacts/`), and what lies beside the repository (`../shared/`, `shared/spec/`).
 */

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', 'dist', '.turbo', '.data', 'artifacts', 'coverage']);

function walk(dir: string, found: { files: string[]; folders: string[] }) {
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    if (SKIPPED_FOLDERS.has(entry.name)) continue;
    const relative = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      found.folders.push(relative);
      walk(relative, found);
    } else found.files.push(relative);
  }
  return found;
}

const tree = walk('', { files: [], folders: [] });
const paths = new Set([...tree.files, ...tree.folders]);
const tails = [...paths];

const topFolders = new Set(tree.folders.filter((folder) => !folder.includes('/')));
const srcFolders = new Set(
  tree.folders.filter((folder) => folder.startsWith('server/src/')).map((folder) => folder.split('/')[2]),
);
const OUR_EXTENSIONS = /\.(ts|tsx|md|ya?ml|cfg|sql|sh|css|html)$/;
const NOT_OURS = /^(@|\.data\/|[a-z]+\/[a-z0-9.+-]+$)/;
const BESIDE_THE_REPOSITORY = /^(\.\.\/|shared\/spec\/)/;

function looksLikeOurPath(token: string): boolean {
  if (/[\s*<>{}:$=()[\],|`'"]/.test(token) || token.startsWith('-') || token.startsWith('/')) return false;
  if (token.split('/').includes('artifacts') || BESIDE_THE_REPOSITORY.test(token)) return false;
  // An extension on its own (`.ts`) names no file.
  if (/^\.[a-z]+$/.test(token)) return false;
  const first = token.replace(/^\.\//, '').split('/')[0] ?? '';
  const knownFolder = token.includes('/') && (topFolders.has(first) || srcFolders.has(first));
  if (!knownFolder && NOT_OURS.test(token)) return false;
  return OUR_EXTENSIONS.test(token) || knownFolder;
}

function exists(target: string, document: string): boolean {
  const clean = target.split('#')[0]?.replace(/\/$/, '').replace(/^\.\//, '') ?? '';
  if (!clean) return true;
  const beside = path.posix.normalize(path.posix.join(path.posix.dirname(document), clean));
  if (paths.has(beside) || paths.has(clean)) return true;
  return tails.some((known) => known.endsWith(`/${clean}`));
}

function documents(): string[] {
  const inDocs = tree.files.filter((file) => file.startsWith('docs/') && file.endsWith('.md'));
  return ['README.md', 'CONTRIBUTING.md', ...inDocs];
}

interface Reference {
  document: string;
  line: number;
  target: string;
}

function missingReferences(): Reference[] {
  const missing: Reference[] = [];
  for (const document of documents()) {
    const text = readFileSync(path.join(ROOT, document), 'utf8');
    const lineOf = (index: number) => text.slice(0, index).split('\n').length;
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z]+:/.test(target) || target.startsWith('#')) continue;
      if (!exists(target, document)) missing.push({ document, line: lineOf(match.index), target });
    }
    for (const match of text.matchAll(/`([^`\n]+)`/g)) {
      const target = match[1] ?? '';
      if (!looksLikeOurPath(target)) continue;
      const after = text.slice(match.index + match[0].length, match.index + match[0].length + 10);
      if (/^\s*\(removed/.test(after)) continue;
      if (!exists(target, document)) missing.push({ document, line: lineOf(match.index), target });
    }
  }
  return missing;
}

describe('the docs', () => {
  it('name no file that does not exist', () => {
    const missing = missingReferences().map(({ document, line, target }) => `${document}:${line} ${target}`);
    expect(missing).toEqual([]);
  });

  it('index every decision in docs/decisions/README.md, each with a status line', () => {
    const decisions = tree.files
      .filter((file) => /^docs\/decisions\/\d{3}-.+\.md$/.test(file))
      .map((file) => path.posix.basename(file));
    const index = readFileSync(path.join(ROOT, 'docs/decisions/README.md'), 'utf8');
    expect(decisions.filter((file) => !index.includes(`(${file})`))).toEqual([]);
    const withoutStatus = decisions.filter(
      (file) => !/^Status: /m.test(readFileSync(path.join(ROOT, 'docs/decisions', file), 'utf8')),
    );
    expect(withoutStatus).toEqual([]);
  });
});
