// The page's one way to make HTML: a tagged template whose every interpolated value is text unless
// it is already Html. Text is made one escape-free line (core/text/clean.ts plainLine, so no
// terminal escape or control character reaches the page) and then escaped for HTML (& < > " ' and
// `), so it is safe between tags and inside quoted attributes alike. Nothing else in dash/ builds
// markup from strings. Pure.

import { plainLine } from '../../service/core/text/clean.js';

const MARK: unique symbol = Symbol('html');

/** Markup this module made (or a literal of the page's own): never text from a file. */
export interface Html {
  readonly [MARK]: string;
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Text as HTML: one escape-free line, every character that means something in markup escaped. */
export function escapeText(text: string): string {
  return plainLine(text).replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c);
}

function isHtml(value: unknown): value is Html {
  return typeof value === 'object' && value !== null && MARK in value;
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (isHtml(part)) return part[MARK];
  if (Array.isArray(part)) return part.map(render).join('');
  if (typeof part === 'number') return Number.isFinite(part) ? String(part) : '';
  if (part === true) return '';
  return escapeText(part as string);
}

/** Markup from a template: the literal parts as written, each value as text (or as Html). */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return { [MARK]: out };
}

/** The markup as a string, for the response body. */
export function markup(value: Html): string {
  return value[MARK];
}

/** Html joined with a separator of the page's own. */
export function joinHtml(parts: readonly Html[], separator: Html = html``): Html {
  return { [MARK]: parts.map(markup).join(markup(separator)) };
}
