// The shim's socket client and socket resolution (§2.1): `--session NAME` > HERDR_SOCKET_PATH >
// HERDR_SESSION > `<config_dir>/herdr.sock`. One request per connection, like the real CLI.
import { connect } from 'node:net';
import { join } from 'node:path';
import { configDir } from '../lib/plugins.mjs';

export class NotRunning extends Error {}

export function resolveSocket(env, session) {
  if (session) return join(configDir(env), 'sessions', session, 'herdr.sock');
  if (env.HERDR_SOCKET_PATH) return env.HERDR_SOCKET_PATH;
  if (env.HERDR_SESSION) return join(configDir(env), 'sessions', env.HERDR_SESSION, 'herdr.sock');
  return join(configDir(env), 'herdr.sock');
}

/** Sends one request; resolves the parsed response. NotRunning on ENOENT/ECONNREFUSED. */
export function request(socketPath, id, method, params) {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ id, method, params })}\n`));
    socket.on('data', (chunk) => {
      buffer += chunk;
    });
    socket.on('error', (error) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') reject(new NotRunning(socketPath));
      else reject(error);
    });
    socket.on('end', () => {
      const line = buffer.split('\n')[0];
      try {
        resolve(JSON.parse(line));
      } catch {
        reject(new Error(`invalid response from herdr server: ${JSON.stringify(line.slice(0, 200))}`));
      }
    });
  });
}
