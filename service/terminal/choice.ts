// Whether tmux may be the terminal when Herdr does not answer: when this process runs inside tmux
// (TMUX is set), or when `--terminal tmux` (exported to child processes as DOGSLED_TERMINAL) or
// `terminal = "tmux"` in config.toml asks for it. The config's other keys are loadConfig's to judge:
// a file that does not read here simply asks for nothing.

import { join } from 'node:path';
import { DogsledError } from '../core/common/errors.js';
import { readTomlFile } from '../state/engine/toml-file.js';
import { tmuxServerEnv } from './tmux/tmux-env.js';

export const TERMINAL_CHOICES = ['auto', 'tmux'] as const;
export type TerminalChoice = (typeof TERMINAL_CHOICES)[number];

/** Carries `--terminal` to every process a command starts (job panes, the service). */
export const TERMINAL_ENV = 'DOGSLED_TERMINAL';

export interface TmuxChoice {
  socket: string | undefined;
  /** Why tmux: `TMUX is set`, `--terminal tmux`, `terminal = "tmux" in PATH`. */
  why: string;
}

/**
 * tmux's server and the reason to use it, or undefined when nothing asks for tmux. `configured` is
 * config.toml's `terminal` when the caller has read and judged the file (loadConfig: `auto` when
 * absent); else the key is read here, tolerantly.
 */
export async function tmuxChoice(
  env: NodeJS.ProcessEnv,
  home: string,
  configured?: TerminalChoice,
): Promise<TmuxChoice | undefined> {
  const { socket } = tmuxServerEnv(env);
  const where = socket ? `server ${socket}` : 'the default tmux server';
  if (env.TMUX) return { socket, why: `TMUX is set: ${where}` };
  if (env[TERMINAL_ENV] === 'tmux') return { socket, why: `--terminal tmux: ${where}` };
  const config = env.DOGSLED_CONFIG || join(home, '.config', 'dogsled', 'config.toml');
  const choice = configured === undefined ? await configChoice(config) : configured;
  if (choice === 'tmux') return { socket, why: `terminal = "tmux" in ${config}: ${where}` };
  return undefined;
}

async function configChoice(path: string): Promise<TerminalChoice | undefined> {
  try {
    const data = (await readTomlFile(path, (problem) => new DogsledError(problem))) as
      | Record<string, unknown>
      | undefined;
    const value = data?.terminal;
    return value === 'tmux' || value === 'auto' ? value : undefined;
  } catch {
    return undefined;
  }
}
