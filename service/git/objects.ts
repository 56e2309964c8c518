// Loose tree and commit objects written into a scratch object directory, so the three-way check
// can hand `git merge-tree` synthetic inputs without writing anything into the repository itself.
// The repository's objects are reached through GIT_ALTERNATE_OBJECT_DIRECTORIES; the scratch
// directory is deleted afterwards. Object ids use the repository's hash (SHA-1 or SHA-256).

import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface TreeEntry {
  /** `100644`, `100755` or `120000`: blobs only (the check never nests trees). */
  mode: string;
  name: string;
  oid: string;
}

export class ScratchObjects {
  private readonly algorithm: 'sha1' | 'sha256';

  constructor(
    readonly dir: string,
    /** Any object id of the repository: its length tells the hash. */
    sampleOid: string,
  ) {
    this.algorithm = sampleOid.length === 64 ? 'sha256' : 'sha1';
  }

  /** Writes a flat tree of blob entries and returns its id. */
  async tree(entries: readonly TreeEntry[]): Promise<string> {
    const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
    const parts: Buffer[] = [];
    for (const entry of sorted) {
      parts.push(Buffer.from(`${entry.mode} ${entry.name}\0`), Buffer.from(entry.oid, 'hex'));
    }
    return this.write('tree', Buffer.concat(parts));
  }

  /** Writes a commit with a fixed identity and date, so the same inputs give the same id. */
  async commit(tree: string, parents: readonly string[]): Promise<string> {
    const who = 'dogsled <dogsled@localhost> 0 +0000';
    const lines = [`tree ${tree}`, ...parents.map((parent) => `parent ${parent}`)];
    const body = `${lines.join('\n')}\nauthor ${who}\ncommitter ${who}\n\nthree-way check\n`;
    return this.write('commit', Buffer.from(body));
  }

  private async write(type: 'tree' | 'commit', body: Buffer): Promise<string> {
    const object = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
    const oid = createHash(this.algorithm).update(object).digest('hex');
    const folder = join(this.dir, oid.slice(0, 2));
    await mkdir(folder, { recursive: true });
    // zlib only here, where a three-way question is asked: not loaded by every survey that asks none.
    await writeFile(join(folder, oid.slice(2)), process.getBuiltinModule('node:zlib').deflateSync(object));
    return oid;
  }
}
