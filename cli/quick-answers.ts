// `dogsled --version` and `dogsled --help` without the full command line: the version is the
// bundler's constant, and the top-level help is the text commander prints for it, rendered at build
// time into dist/help.txt (scripts/build.mjs) exactly as it prints it on a pipe or a file. On a
// terminal commander wraps the help to the terminal's width, so there (and when help.txt is
// missing) the full command line prints it. Loading commander and every command's declaration was
// most of what these cost beyond `node -e 0`.

import { fstatSync, readFileSync, statSync } from 'node:fs';
import { VERSION } from '../service/core/common/version.js';
import { writeOut } from './stdout.js';

/** Whether `args` was answered here (its output written); otherwise the full command line answers. */
export function quickAnswer(args: readonly string[], dist: string): boolean {
  if (args.length !== 1) return false;
  const [flag] = args;
  if (flag === '--version' || flag === '-V') {
    writeOut(`${VERSION}\n`);
    return true;
  }
  if ((flag !== '--help' && flag !== '-h') || mayBeTerminal()) return false;
  let help: string;
  try {
    help = readFileSync(`${dist}help.txt`, 'utf8');
  } catch {
    return false;
  }
  writeOut(help);
  return true;
}

/**
 * fd 1 is a character device other than /dev/null: perhaps a terminal. Asking Node (tty.isatty)
 * loads node:tty and with it node:net, a cost this shortcut exists to avoid.
 */
function mayBeTerminal(): boolean {
  try {
    const out = fstatSync(1);
    return out.isCharacterDevice() && out.rdev !== statSync('/dev/null').rdev;
  } catch {
    return true;
  }
}
