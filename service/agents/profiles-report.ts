// `dogsled profiles` as data: every profile under the profiles directory, usable or broken, in the
// shape `--json` prints (and the sidebar's profile panel will read). Built once here so every
// surface shows the same thing.

import * as z from 'zod/mini';
import { lazySchema } from '../state/engine/lazy-schema.js';
import { listProfiles, profilesDir, ROLES, THINKING_LEVELS } from './profiles.js';

export const ProfileRowSchema = lazySchema(() =>
  z.object({
    name: z.string(),
    /** The profile's directory. */
    path: z.string(),
    description: z.nullable(z.string()),
    model: z.nullable(z.string()),
    thinking: z.nullable(z.enum(THINKING_LEVELS)),
    role: z.nullable(z.enum(ROLES)),
    /** Absolute prompt files, in the order the child gets them. */
    prompt: z.array(z.string()),
    pi_args: z.array(z.string()),
    /** Why the profile cannot be used, else null. */
    broken: z.nullable(z.string()),
  }),
);

export const ProfilesReportSchema = lazySchema(() =>
  z.object({
    dir: z.string(),
    profiles: z.array(ProfileRowSchema),
  }),
);

export type ProfileRow = z.infer<typeof ProfileRowSchema>;
export type ProfilesReport = z.infer<typeof ProfilesReportSchema>;

export async function profilesReport(home: string): Promise<ProfilesReport> {
  const dir = profilesDir(home);
  const entries = await listProfiles(dir);
  const profiles = entries.map((entry): ProfileRow => {
    const profile = entry.profile;
    return {
      name: entry.name,
      path: entry.dir,
      description: profile?.description ?? null,
      model: profile?.model ?? null,
      thinking: profile?.thinking ?? null,
      role: profile?.role ?? null,
      prompt: profile?.prompts ?? [],
      pi_args: profile?.pi_args ?? [],
      broken: entry.broken,
    };
  });
  return { dir, profiles };
}
