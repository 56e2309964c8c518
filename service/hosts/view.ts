// A host as the CLI and sidebar see it: its latest snapshot, whether its service runs, its live
// reservations and the headroom recomputed now. The zod schemas of these documents live in
// view-schemas.ts: they are the contract for scripts (validated in tests), and building them costs
// start-up time that `status --line` does not spend.

import type * as z from 'zod/mini';
import type { HostViewSchema, StatusReportSchema } from './view-schemas.js';

export type HostView = z.infer<typeof HostViewSchema>;
export type StatusReport = z.infer<typeof StatusReportSchema>;
