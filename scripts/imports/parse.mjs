// What the import rules read of a source file: the files of a folder, a module's imports, the words
// of its code (never its comments) and the zod schemas it builds at its top level. TypeScript's own
// parser reads them, so a string, a comment and a type-only import are told apart as tsc would.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';

export async function sourceFiles(dir, pattern = /\.ts$/) {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files = [];
  for (const entry of entries) {
    // Installed packages and build output (a plugin's bundle holds the code it was built from).
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(path, pattern)));
    else if (pattern.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

/** The code's words: identifiers and the text of string and template literals, never comments. */
export function codeWords(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const words = [];
  const visit = (node) => {
    // `import type` and `export type` are erased from the bundle: their specifier loads nothing.
    // Not `import { type A }`: under verbatimModuleSyntax it stays, as `import 'module'`.
    if (ts.isImportDeclaration(node) && node.importClause?.isTypeOnly) return;
    if (ts.isExportDeclaration(node) && node.isTypeOnly) return;
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      words.push({ kind: isKey(node) ? 'key' : 'name', text: node.text });
    } else if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken?.(node) || isTemplatePart(node)) {
      words.push({ kind: 'string', text: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return words;
}

/**
 * An identifier that names an object's property (env.X, { X: v }, { X }, const { X } = env, a
 * property signature): how an environment variable is read or set, unlike a constant's own name.
 */
function isKey(node) {
  const parent = node.parent;
  if (!parent) return false;
  if (ts.isPropertyAccessExpression(parent)) return parent.name === node;
  if (ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent)) return parent.name === node;
  if (ts.isShorthandPropertyAssignment(parent)) return true;
  if (ts.isBindingElement(parent))
    return parent.propertyName === node || ts.isObjectBindingPattern(parent.parent);
  return false;
}

function isTemplatePart(node) {
  return (
    node.kind === ts.SyntaxKind.TemplateHead ||
    node.kind === ts.SyntaxKind.TemplateMiddle ||
    node.kind === ts.SyntaxKind.TemplateTail
  );
}

/**
 * `import type …` or `export type …` only: under verbatimModuleSyntax, `import { type A }` is kept
 * as `import 'x'` and loads the module, so it is not type-only.
 */
function typeOnlyImport(node) {
  const clause = ts.isImportDeclaration(node) ? node.importClause : node;
  return clause?.isTypeOnly === true;
}

export function imports(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      found.push({ spec: node.moduleSpecifier.text, typeOnly: typeOnlyImport(node) });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      // `typeof import('…')`: a type, erased from the bundle, but a dependency all the same.
      found.push({ spec: node.argument.literal.text, typeOnly: true });
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require') ||
        (ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'getBuiltinModule'))
    ) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteral(arg)) found.push({ spec: arg.text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The zod calls (`z.object(…)`, `z.int()`…) a module makes at its top level, when it runs, rather
 * than inside a function (a lazySchema thunk, a parser): each builds schema nodes at import.
 */
export function eagerSchemas(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node)) return;
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ts.isIdentifier(node.expression.expression) &&
      node.expression.expression.text === 'z'
    ) {
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
