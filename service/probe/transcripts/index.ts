// Agent transcripts: which file belongs to a pane (discover) and what it says (read). The service
// calls both every tick with one shared cache; everything else here is pure and unit-tested.

export { type ListDir, type SessionIndex, type TranscriptCache, transcriptCache } from './cache.js';
export {
  type DiscoverQuery,
  type Discovery,
  discoverTranscript,
  discoverTranscriptFile,
  type FileDiscovery,
  type NoTranscriptReason,
  type SessionRef,
  type TranscriptIO,
} from './discover.js';
export { formatOf, type TranscriptFormat } from './formats.js';
export { type FileFacts, nodeTranscriptFs, sameFile, type TranscriptFs } from './fs.js';
export { jsonRecords } from './lines.js';
export { REPLY_MAX_CHARS, readFinalReply } from './reply.js';
export { ACTIVITY_TEXT_MAX, displayLine } from './summary.js';
export { type Activity, NO_FACTS, type TranscriptFacts, transcriptFacts } from './transcript-facts.js';
export { HEAD_BYTES, readTranscriptFacts, TAIL_WINDOWS, type TranscriptReadIO } from './transcript-read.js';
