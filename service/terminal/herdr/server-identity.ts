// Which Herdr server instance this process talks to, without talking to it: the identity of the
// socket file Herdr's own resolution names (device, inode, change time). A restarted server binds a
// new socket file, so the identity changes; within one server, pane ids are never reused, so a
// pane's terminal can be remembered under this identity. Only a stat; nothing is connected.

import { statSync } from 'node:fs';
import { socketCandidate } from './locate.js';

/** `dev:ino:ctime` of the socket, or undefined when there is no socket there. */
export function herdrServerIdentity(env: NodeJS.ProcessEnv, home: string): string | undefined {
  try {
    // Synchronous: a hook asks on every prompt and stop, and one stat is less than a trip through
    // the thread pool.
    const stats = statSync(socketCandidate(env, home).path);
    if (!stats.isSocket()) return undefined;
    return `${stats.dev}:${stats.ino}:${Math.round(stats.ctimeMs)}`;
  } catch {
    return undefined;
  }
}
