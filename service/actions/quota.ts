// `quota [--cached|--refresh]` and `quota --store`, from every front end: the quota snapshot, collected
// first when it is due on a host that collects (service/quota/quota-report.ts), and one pushed
// snapshot stored with the same newer-wins writer as `host quota-store` (quota-store.ts).

export type { QuotaReport } from '../quota/quota-report.js';
export { quotaReport } from '../quota/quota-report.js';
/** The largest snapshot `--store` reads; a front end stops reading past it. */
export { MAX_SNAPSHOT_BYTES, storePushedSnapshot } from '../quota/quota-store.js';
export type { QuotaMode } from '../quota/refresh.js';
