// Where work sent from another host runs here (spec, "Repository configuration" and "Jobs, agents,
// and owners"): a directory under the caller's home maps to the same path under this home, any other
// is taken as it is. A repository's checkout is verified against the caller's origin, or cloned from
// it when this host has none (and a fresh clone's mise configuration trusted, mise-trust.ts); a path
// that is something else, or another repository, is refused and left as it is. Nothing moves the
// work elsewhere.

import { realpath, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path';
import * as z from 'zod/mini';
import { DogsledError } from '../core/common/errors.js';
import { quoted } from '../core/text/clean.js';
import { checkoutTop, cloneCheckout, originOf } from '../git/checkout-origin.js';
import { lazySchema } from '../state/engine/lazy-schema.js';
import type { ProcessIO } from '../state/io.js';
import { trustFreshClone } from './mise-trust.js';

/** What the caller sends: its directory, and the repository that holds it when there is one. */
export const WorkPlaceSchema = lazySchema(() =>
  z.looseObject({
    /** The caller's directory as it is there (absolute). */
    cwd: z.string(),
    /** `cwd` relative to the caller's home when it lies under it, else null. */
    home_relative: z.nullable(z.string()),
    /** The caller's checkout: its top (relative to home, else absolute) and its origin. */
    checkout: z.nullable(
      z.looseObject({
        top: z.string(),
        top_home_relative: z.nullable(z.string()),
        origin: z.nullable(z.string()),
      }),
    ),
  }),
);

export type WorkPlace = z.infer<typeof WorkPlaceSchema>;

/**
 * A directory list (a PATH) as it travels to another host: each directory in order, with its path
 * relative to the caller's home when it lies under it (mapped there as `cwd` is); a relative entry
 * (the empty one is the current directory) stays as it is.
 */
export const TravellingDirsSchema = lazySchema(() =>
  z.array(z.looseObject({ dir: z.string(), home_relative: z.nullable(z.string()) })),
);

export type TravellingDirs = z.infer<typeof TravellingDirsSchema>;

/** The caller's side of a directory list: `list` split, each directory under `home` marked so. */
export function travellingDirs(list: string, home: string): TravellingDirs {
  return list
    .split(delimiter)
    .map((dir) => ({ dir, home_relative: isAbsolute(dir) ? homeRelative(dir, home) : null }));
}

/** This host's directory list for one that travelled: each directory under the caller's home, here. */
export function dirsHere(io: Pick<ProcessIO, 'home'>, dirs: TravellingDirs): string {
  return dirs.map((entry) => mapped(io, entry.dir, entry.home_relative)).join(delimiter);
}

/** `path` relative to `home` when it lies under it, else null (taken as an absolute path there). */
export function homeRelative(path: string, home: string): string | null {
  const rel = relative(home, path);
  if (rel === '') return '.';
  return rel.startsWith('..') || isAbsolute(rel) ? null : rel;
}

/** This host's path for a caller's path: the same path under this home, or the path itself. */
function mapped(io: Pick<ProcessIO, 'home'>, path: string, rel: string | null): string {
  return rel === null ? path : resolve(join(io.home, rel));
}

export interface PlacedHere {
  /** The directory the work runs in here. */
  cwd: string;
  /** The checkout was cloned for this work. */
  cloned: boolean;
  /** The checkout's top here (the directory itself outside a repository). */
  top: string;
}

/**
 * The directory here for work from another host, its checkout verified or cloned first. A plain
 * directory must exist; `clone` false refuses a missing checkout instead of cloning it.
 */
export async function placeHere(
  io: ProcessIO & { signal?: AbortSignal | undefined },
  place: WorkPlace,
  options: { timeoutMs?: number } = {},
): Promise<PlacedHere> {
  const cwd = mapped(io, place.cwd, place.home_relative);
  if (place.checkout === null) {
    const found = await stat(cwd).catch(() => undefined);
    if (!found?.isDirectory()) throw new DogsledError(`${quoted(cwd)} is not a directory on this host`);
    return { cwd, cloned: false, top: cwd };
  }
  const { checkout } = place;
  const top = mapped(io, checkout.top, checkout.top_home_relative);
  const inner = relative(checkout.top, place.cwd);
  const here = inner === '' ? top : resolve(top, inner);
  const found = await stat(top).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw new DogsledError(`cannot read ${quoted(top)}: ${error.code ?? error.message}`);
  });
  const git = { env: io.env, signal: io.signal };
  if (found === undefined) {
    if (checkout.origin === null) {
      throw new DogsledError(
        `no checkout at ${quoted(top)} on this host, and the caller's checkout has no origin to clone from`,
      );
    }
    const budget = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs };
    await cloneCheckout(checkout.origin, top, { ...git, ...budget });
    await trustFreshClone(top, { ...git, ...budget });
    return { cwd: here, cloned: true, top };
  }
  const topHere = found.isDirectory() ? await checkoutTop(top, git) : null;
  const same =
    topHere !== null &&
    (await realpath(topHere).catch(() => topHere)) === (await realpath(top).catch(() => top));
  if (!same) throw new DogsledError(`${quoted(top)} on this host is not a checkout of a repository`);
  const theirs = await originOf(top, git);
  if (checkout.origin !== null && theirs !== checkout.origin) {
    throw new DogsledError(
      `the checkout at ${quoted(top)} on this host has origin ${quoted(theirs ?? '(none)')}, not the caller's ${quoted(checkout.origin)}`,
    );
  }
  return { cwd: here, cloned: false, top };
}

/** The caller's side: its directory and, when it is in a checkout, that checkout's top and origin. */
export async function workPlaceOf(
  io: ProcessIO & { signal?: AbortSignal | undefined },
  cwd: string,
): Promise<WorkPlace> {
  const git = { env: io.env, signal: io.signal };
  const top = await checkoutTop(cwd, git);
  return {
    cwd,
    home_relative: homeRelative(cwd, io.home),
    checkout:
      top === null
        ? null
        : { top, top_home_relative: homeRelative(top, io.home), origin: await originOf(top, git) },
  };
}
