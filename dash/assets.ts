// The page's static files, built once into dist/dash/ by scripts/build.mjs (page.html, dash.css,
// dash.js), read when the server starts. The stylesheet and the script go inline into the one page,
// so a reader loads everything in one request, and the Content-Security-Policy allows exactly those
// two by their hashes: no other script or style runs, whatever a state file managed to put in the
// page.

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DogsledError } from '../service/core/common/errors.js';

export interface PageAssets {
  /** The page with its stylesheet and script in place, `<!--body-->` still to fill. */
  template: string;
  /** The Content-Security-Policy header that allows exactly the inline stylesheet and script. */
  policy: string;
}

const BODY = '<!--body-->';

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

export async function readAssets(dir: string): Promise<PageAssets> {
  const read = (name: string) =>
    readFile(join(dir, name), 'utf8').catch(() => {
      throw new DogsledError(`the page's files are missing (${join(dir, name)}): build dogsled again`);
    });
  const [page, style, script] = await Promise.all([read('page.html'), read('dash.css'), read('dash.js')]);
  if (!page.includes(BODY) || !page.includes('/*style*/') || !page.includes('/*script*/'))
    throw new DogsledError(`${join(dir, 'page.html')} is not the page dogsled built: build dogsled again`);
  const template = page.replace('/*style*/', () => style).replace('/*script*/', () => script);
  const policy = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { template, policy };
}

/** The page with `body` in place. */
export function pageWith(assets: PageAssets, body: string): string {
  return assets.template.replace(BODY, () => body);
}
