// Enforces the layering of DESIGN.md §2: service/core and sidebar/model are pure (they import only
// core modules, or types from anywhere, and read no clock, environment or randomness), service/
// never imports the CLI or the sidebar, and a command module (cli/commands) takes nothing but types
// from service/state: it calls one service function, so it never writes a state file, takes a lock
// or builds a record itself. Exits 1 with one line per violation.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CORE = join(root, 'service', 'core');
const STATE = join(root, 'service', 'state');
const COMMANDS = join(root, 'cli', 'commands');
const IMPURE = {
  'process.': /\bprocess\./,
  'Date.now()': /\bDate\.now\(/,
  'new Date()': /\bnew Date\(\)/,
  'Math.random()': /\bMath\.random\(/,
  'setTimeout()': /\bsetTimeout\(/,
  'console.': /\bconsole\./,
};

async function sourceFiles(dir) {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(path)));
    else if (entry.name.endsWith('.ts')) files.push(path);
  }
  return files;
}

function imports(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      const clause = ts.isImportDeclaration(node) ? node.importClause : node;
      let typeOnly = Boolean(clause?.isTypeOnly);
      const named = ts.isImportDeclaration(node) ? clause?.namedBindings : node.exportClause;
      if (!typeOnly && named && ts.isNamedImports?.(named) && !clause?.name) {
        typeOnly = named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
      }
      found.push({ spec: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteral(arg)) found.push({ spec: arg.text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const problems = [];
for (const file of await sourceFiles(join(root, 'service'))) {
  const text = await readFile(file, 'utf8');
  const name = relative(root, file);
  const inCore = file.startsWith(CORE + '/');
  for (const { spec, typeOnly } of imports(file, text)) {
    const target = spec.startsWith('.') ? resolve(dirname(file), spec) : null;
    if (target && (target.startsWith(join(root, 'cli')) || target.startsWith(join(root, 'sidebar')))) {
      problems.push(
        `${name}: service code imports the ${relative(root, target).split('/')[0]} layer (${spec})`,
      );
    }
    if (inCore && !typeOnly && !target?.startsWith(`${CORE}/`)) {
      problems.push(`${name}: service/core must stay pure but imports ${spec}`);
    }
  }
  if (inCore) {
    const code = text.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    for (const [what, pattern] of Object.entries(IMPURE)) {
      if (pattern.test(code)) problems.push(`${name}: service/core uses ${what}`);
    }
  }
}

for (const file of await sourceFiles(COMMANDS)) {
  const name = relative(root, file);
  for (const { spec, typeOnly } of imports(file, await readFile(file, 'utf8'))) {
    const target = spec.startsWith('.') ? resolve(dirname(file), spec) : null;
    if (!typeOnly && target?.startsWith(`${STATE}/`)) {
      problems.push(`${name}: a command imports ${spec}: state is read and written by service functions`);
    }
  }
}

// The sidebar's row model is pure too (DESIGN §2, STYLE 9): it may import service/core and itself.
const MODEL = join(root, 'sidebar', 'model');
for (const file of await sourceFiles(MODEL)) {
  const text = await readFile(file, 'utf8');
  const name = relative(root, file);
  for (const { spec, typeOnly } of imports(file, text)) {
    const target = spec.startsWith('.') ? resolve(dirname(file), spec) : null;
    if (!typeOnly && !target?.startsWith(`${CORE}/`) && !target?.startsWith(`${MODEL}/`)) {
      problems.push(`${name}: sidebar/model must stay pure but imports ${spec}`);
    }
  }
  const code = text.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
  for (const [what, pattern] of Object.entries(IMPURE)) {
    if (pattern.test(code)) problems.push(`${name}: sidebar/model uses ${what}`);
  }
}

if (problems.length > 0) {
  for (const line of problems) console.error(line);
  process.exit(1);
}
console.log(
  'imports: service/core and sidebar/model are pure; service does not import cli or sidebar; commands leave state to service/',
);
