// dogsled installed the way the README's Install says: `npm pack`, then `npm install -g --prefix
// DIR ./dogsled-X.Y.Z.tgz` into a prefix of the user's own (no root, no build tools), and the
// quick start run from there: `dogsled serve` in the background, then `dogsled status`.

import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { exited, ROOT, sandbox } from '../../helpers/cli.js';
import { packedRelease } from '../../helpers/pack.js';
import { tempDir } from '../../helpers/tree.js';
import { waitFor } from '../../helpers/wait.js';

const run = promisify(execFile);
const PKG = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  files: string[];
  dependencies: Record<string, string>;
  bin: Record<string, string>;
};

describe('package.json', () => {
  it('lists in `files` only what exists, and the bin the build makes', async () => {
    for (const entry of PKG.files) expect(existsSync(join(ROOT, entry)), entry).toBe(true);
    expect(PKG.bin).toEqual({ dogsled: 'dist/dogsled.cjs' });
  });

  it('depends at run time only on what the bundle leaves to node_modules', async () => {
    // The bundle's own imports of packages (not Node's built-ins), by package name.
    const names = new Set<string>();
    const files = (await readdir(join(ROOT, 'dist'), { recursive: true })).filter((f) =>
      /\.(c|m)?js$/.test(f),
    );
    for (const file of files) {
      const code = await readFile(join(ROOT, 'dist', file), 'utf8');
      // Static and dynamic imports, requires, and createRequire(...).resolve of a widget's path. A
      // require inside a string is not one: ajv (in the mcp bundle) keeps, for its standalone code
      // generation, the source of the requires that code would make (`require("ajv/dist/...")`).
      for (const m of code.matchAll(
        /(?:\bfrom\s*|(?<![\w`'])require\(|\bimport\(|\b(?!Promise\b)\w+\.resolve\()"([^".][^"]*)"/g,
      )) {
        const spec = m[1]!;
        if (spec.startsWith('node:') || isBuiltin(spec)) continue;
        names.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    // ssh2's optional native speed-up, which it loads inside a try and does without.
    names.delete('cpu-features');
    const deps = Object.keys(PKG.dependencies).sort();
    // Every package the bundle imports by a plain string is a dependency...
    for (const name of names) expect(deps, name).toContain(name);
    // ...and the dependencies are exactly what the build leaves out of the bundle (the sidebar
    // reaches blessed's parts through paths it builds, which no pattern above can see), each of them
    // named somewhere in dist.
    const { BUNDLE_EXTERNALS } = (await import(join(ROOT, 'scripts', 'build.mjs'))) as {
      BUNDLE_EXTERNALS: string[];
    };
    const externals = BUNDLE_EXTERNALS.filter((e) => e !== 'cpu-features' && !e.includes('*'));
    expect(externals.sort()).toEqual(deps);
    const all = (await Promise.all(files.map((f) => readFile(join(ROOT, 'dist', f), 'utf8')))).join('\n');
    for (const name of deps)
      expect(all, name).toMatch(new RegExp(`["'\`]${name.replace(/[/.]/g, '\\$&')}[/"'\`]`));
  });
});

function isBuiltin(spec: string): boolean {
  return (process.getBuiltinModule as (id: string) => unknown)(spec) !== undefined;
}

describe('npm install -g --prefix DIR ./dogsled-X.Y.Z.tgz', () => {
  let prefix: string;
  let installed: string;
  let output: string;

  beforeAll(async () => {
    const { tarball } = await packedRelease();
    prefix = join(await tempDir('dogsled-prefix-'), 'a prefix');
    // Dependencies from npm's cache when it has them (CI filled it with npm ci), else the registry.
    const done = await run(
      'npm',
      ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball],
      { cwd: prefix.replace(/\/a prefix$/, ''), maxBuffer: 16 * 1024 * 1024 },
    );
    output = done.stdout + done.stderr;
    installed = join(prefix, 'lib', 'node_modules', 'dogsled');
  });

  it('puts dogsled in DIR/bin and the package, with its units, plugins and profiles, in DIR/lib', async () => {
    const { stdout } = await run(join(prefix, 'bin', 'dogsled'), ['--version']);
    expect(stdout.trim()).toBe(PKG.version);
    for (const path of [
      'dist/dogsled.cjs',
      'services/dogsled.service',
      'services/dev.dogsled.plist',
      'plugins/dogsled/.claude-plugin/plugin.json',
      'plugins/dogsled/hooks/hooks.json',
      'plugins/pi/dist/index.js',
      'profiles/general/profile.json',
      'herdr-plugin.toml',
      'plugin/fetch.sh',
    ]) {
      expect((await stat(join(installed, path))).isFile(), path).toBe(true);
    }
  });

  it('needs no build tools: nothing installed runs an install script or compiles', async () => {
    // npm 11 lists every package with a lifecycle script for the user to allow: the release's
    // manifest has no scripts (not even the checkout's `prepare`), and no dependency may have one.
    const warned = output.split('\n').filter((line) => /install-scripts/.test(line));
    expect(warned).toEqual([]);
    expect(output).not.toMatch(/gyp/);
    const found: string[] = [];
    const visit = async (dir: string): Promise<void> => {
      for (const name of await readdir(dir).catch(() => [])) {
        const pkg = join(dir, name);
        if (name.startsWith('@')) {
          await visit(pkg);
          continue;
        }
        const manifest = await readFile(join(pkg, 'package.json'), 'utf8').then(JSON.parse, () => null);
        if (!manifest) continue;
        const scripts = manifest.scripts ?? {};
        if (
          scripts.preinstall ||
          scripts.install ||
          scripts.postinstall ||
          existsSync(join(pkg, 'binding.gyp'))
        ) {
          found.push(name);
        }
        await visit(join(pkg, 'node_modules'));
      }
    };
    await visit(join(installed, 'node_modules'));
    expect(found).toEqual([]);
  });

  it('loads what commands leave to node_modules from the installed package', async () => {
    // The sidebar's TUI and the MCP server: resolved as the bundle resolves them, from dist/.
    const script = [
      "const { createRequire } = require('node:module');",
      `const here = createRequire(${JSON.stringify(join(installed, 'dist', 'full.mjs'))});`,
      "for (const m of ['blessed', 'blessed-contrib/lib/widget/sparkline.js', '@modelcontextprotocol/sdk/server/index.js']) here.resolve(m);",
      "console.log('ok');",
    ].join('\n');
    expect((await run(process.execPath, ['-e', script])).stdout).toBe('ok\n');
  });

  it("has doctor name the prefix's bin directory when PATH lacks it, and find it when it is there", async () => {
    const box = await sandbox();
    try {
      const doctor = async (path: string) => {
        const { stdout } = await run(join(prefix, 'bin', 'dogsled'), ['doctor', '--json'], {
          env: { ...box.env, PATH: path },
          cwd: box.home,
        });
        return JSON.parse(stdout).install.find((f: { check: string }) => f.check === 'path');
      };
      expect(await doctor('/usr/bin:/bin')).toMatchObject({
        state: 'fix',
        fix: `export PATH="${join(prefix, 'bin')}:$PATH" (and in your shell's profile)`,
      });
      expect(await doctor(`${join(prefix, 'bin')}:/usr/bin:/bin`)).toMatchObject({
        state: 'ok',
        detail: `dogsled on PATH is ${join(installed, 'dist', 'dogsled.cjs')}`,
      });
    } finally {
      await box.cleanup();
    }
  });

  it('runs the quick start from there: serve in the background, then status', async () => {
    const box = await sandbox();
    try {
      const env = { ...box.env, PATH: `${join(prefix, 'bin')}:${box.env.PATH}` };
      const serve = spawn('dogsled', ['serve'], { env, cwd: box.home, stdio: ['ignore', 'pipe', 'pipe'] });
      let serveOutput = '';
      serve.stderr.on('data', (chunk) => {
        serveOutput += chunk;
      });
      try {
        // The second tick carries a CPU sample: status then shows busy cores, not "no sample yet".
        const status = await waitFor(
          'a status with a CPU sample',
          async () => {
            const { stdout } = await run('dogsled', ['status'], { env, cwd: box.home });
            return /cores busy/.test(stdout) ? stdout : undefined;
          },
          { timeoutMs: 30_000 },
        );
        expect(status).toMatch(/service up/);
        expect(status).toMatch(/^ {2}memory +.* used of /m);
        expect(status).toMatch(/^ {2}disk +.* free of /m);
      } finally {
        serve.kill('SIGTERM');
      }
      expect(await exited(serve)).toEqual({ code: 0, signal: null });
      expect(serveOutput).toMatch(/^dogsled serve: publishing .*host\.json every 10s \(pid \d+\)\n$/);
    } finally {
      await box.cleanup();
    }
  });
});
