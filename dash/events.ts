// The page's live updates: each open page holds one server-sent-events stream. It gets every
// section when it connects, then, after each read of the state, only the sections whose markup
// changed for it (its history search is its own). A comment line every half minute keeps proxies
// and the browser from taking a quiet stream for a dead one. At most READERS_MAX pages at once.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DashState } from '../service/actions/dash.js';
import { renderSections, SECTION_IDS, type SectionId, sectionMarkup } from './view/page-view.js';

export const READERS_MAX = 32;
const PING_MS = 30_000;

interface Reader {
  response: ServerResponse;
  search: string;
  last: Partial<Record<SectionId, string>>;
}

export class Readers {
  private readonly readers = new Set<Reader>();
  private ping: NodeJS.Timeout | undefined;
  private seq = 0;

  get size(): number {
    return this.readers.size;
  }

  /** Opens the page's stream with every section; false when too many pages are open. */
  add(request: IncomingMessage, response: ServerResponse, search: string, state: DashState): boolean {
    if (this.readers.size >= READERS_MAX) return false;
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      connection: 'keep-alive',
    });
    response.write('retry: 2000\n\n');
    const reader: Reader = { response, search, last: {} };
    this.readers.add(reader);
    request.on('close', () => {
      this.readers.delete(reader);
      if (this.readers.size === 0 && this.ping !== undefined) {
        clearInterval(this.ping);
        this.ping = undefined;
      }
    });
    this.ping ??= setInterval(() => {
      for (const one of this.readers) one.response.write(': ping\n\n');
    }, PING_MS);
    this.send(reader, state, new Map());
    return true;
  }

  /** Sends each page the sections of `state` that changed for it. */
  update(state: DashState): void {
    const bySearch = new Map<string, Record<SectionId, string>>();
    for (const reader of this.readers) this.send(reader, state, bySearch);
  }

  close(): void {
    if (this.ping !== undefined) clearInterval(this.ping);
    this.ping = undefined;
    for (const reader of this.readers) reader.response.end();
    this.readers.clear();
  }

  private send(reader: Reader, state: DashState, bySearch: Map<string, Record<SectionId, string>>): void {
    let sections = bySearch.get(reader.search);
    if (sections === undefined) {
      sections = sectionMarkup(renderSections(state, reader.search));
      bySearch.set(reader.search, sections);
    }
    const changed: Partial<Record<SectionId, string>> = {};
    for (const id of SECTION_IDS) {
      if (reader.last[id] === sections[id]) continue;
      changed[id] = sections[id];
      reader.last[id] = sections[id];
    }
    if (Object.keys(changed).length === 0) return;
    this.seq += 1;
    const data = JSON.stringify({ seq: this.seq, now: state.now_ms, sections: changed });
    reader.response.write(`event: sections\ndata: ${data}\n\n`);
  }
}
