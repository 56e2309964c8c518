// `profiles`, from every front end: this host's Pi profiles (~/.config/dogsled/profiles), usable and
// broken alike, a broken one with its reason (service/agents/profiles-report.ts).

export type { ProfileRow, ProfilesReport } from '../agents/profiles-report.js';
export { profilesReport } from '../agents/profiles-report.js';
