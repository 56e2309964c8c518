// The human form of `dogsled profiles`: one line per profile (name, model, thinking, role and the
// description), a broken one with its reason. Profile text is the user's, but it may hold anything,
// so every field is shown as one escape-free line.

import type { ProfilesReport } from '../../service/actions/profiles-action.js';
import { clip, plainLine } from '../../service/core/text/clean.js';

export function renderProfiles(report: ProfilesReport, width: number): string[] {
  if (report.profiles.length === 0) return [`no profiles in ${plainLine(report.dir)}`];
  const names = report.profiles.map((row) => plainLine(row.name));
  const column = Math.min(24, Math.max(...names.map((name) => name.length)));
  return report.profiles.map((row, index) => {
    const name = (names[index] ?? '').padEnd(column);
    if (row.broken !== null) return clip(`${name}  broken: ${plainLine(row.broken)}`, width);
    const facts = [
      row.model ?? 'default model',
      row.thinking === null ? null : `thinking ${row.thinking}`,
      row.role,
      row.description === null || row.description.trim() === '' ? null : row.description,
    ].filter((fact): fact is string => fact !== null);
    return clip(`${name}  ${plainLine(facts.join(' · '))}`, width);
  });
}
