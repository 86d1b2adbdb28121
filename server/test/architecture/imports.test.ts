import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The house's map (docs/architecture.md) as a test: every file under server/src stands on one
 * floor, and no import (static, dynamic, `export ... from`, or `typeof import(...)`) points to a
 * floor above its own. Imports on the same floor, downwards, and of packages (`@pis/shared`
 * included: shared/ sits under the whole server) are fine.
 */

const SRC = path.resolve(import.meta.dirname, '../../src');

const FLOORS = ['floor', 'domain', 'edges', 'composition root'] as const;
type Floor = (typeof FLOORS)[number];

const ROOT_FILES = new Set([
  'main.ts',
  'worker-main.ts',
  'server-process.ts',
  'worker-process.ts',
  'app.ts',
  'app-router.ts',
]);
const ROOT_FOLDERS = ['cli/', 'lifecycle/'];
const EDGE_FOLDERS = ['http/', 'trpc/', 'jobs/'];
const EDGE_FILE = /(\.procedures?|-router|-routes?)\.ts$/;
const DOMAIN_FOLDERS = [
  'payments/',
  'auth/',
  'accounts/',
  'organizations/',
  'providers/',
  'links/',
  'rate-limits/',
  'mail/',
  'catalogue/',
  'dashboard/',
  'observability/',
];
const FLOOR_FILES = new Set(['config.ts', 'clock.ts', 'logger.ts']);
const FLOOR_FOLDERS = ['db/'];

/** The floor of a file, by its path under server/src; undefined for a place the map does not name. */
function floorOf(file: string): Floor | undefined {
  if (ROOT_FILES.has(file) || ROOT_FOLDERS.some((folder) => file.startsWith(folder)))
    return 'composition root';
  if (EDGE_FOLDERS.some((folder) => file.startsWith(folder))) return 'edges';
  if (file.includes('/routers/') || EDGE_FILE.test(file)) return 'edges';
  if (DOMAIN_FOLDERS.some((folder) => file.startsWith(folder))) return 'domain';
  if (FLOOR_FILES.has(file) || FLOOR_FOLDERS.some((folder) => file.startsWith(folder))) return 'floor';
  return undefined;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => path.relative(SRC, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

/** Every module specifier a file names: imports, re-exports, dynamic imports and import types. */
function specifiers(file: string): string[] {
  const text = readFileSync(path.join(SRC, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

interface Import {
  from: string;
  to: string;
}

function localImports(): Import[] {
  return sourceFiles(SRC).flatMap((from) =>
    specifiers(from)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => ({
        from,
        to: path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier)),
      })),
  );
}

const rank = (floor: Floor) => FLOORS.indexOf(floor);

describe('the house as docs/architecture.md draws it', () => {
  const files = sourceFiles(SRC);
  const imports = localImports();

  it('puts every file of server/src on a floor', () => {
    expect(files.filter((file) => floorOf(file) === undefined)).toEqual([]);
  });

  it('has no import that points to a floor above its own', () => {
    const upward = imports
      .filter(({ from, to }) => {
        const own = floorOf(from);
        const target = floorOf(to);
        return own !== undefined && target !== undefined && rank(target) > rank(own);
      })
      .map(({ from, to }) => `${from} (${floorOf(from)}) -> ${to} (${floorOf(to)})`);
    expect(upward).toEqual([]);
  });

  it('keeps provider adapters out of payments/', () => {
    const intoPayments = imports
      .filter(({ from, to }) => from.startsWith('providers/') && to.startsWith('payments/'))
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(intoPayments).toEqual([]);
  });

  it('resolves every relative import to a file that exists', () => {
    const known = new Set(files);
    expect(imports.filter(({ to }) => !known.has(to)).map(({ from, to }) => `${from} -> ${to}`)).toEqual([]);
  });
});
