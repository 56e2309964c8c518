// The commands that install dogsled and its plugins, as the README gives them: one place, so an
// error or a doctor finding names the same line a user reads. `version` is the running dogsled's;
// a tag pins each plugin to the release that matches it.

/** The project on GitHub: its releases, its marketplaces and the Herdr plugin's repository. */
export const PROJECT = 'oisin-ee/dogsled';
export const RELEASES_URL = `https://github.com/${PROJECT}/releases/download`;

export function releaseTarballUrl(version: string): string {
  return `${RELEASES_URL}/v${version}/dogsled-${version}.tgz`;
}

export interface InstallLines {
  /** The CLI, into ~/.local (no root needed). */
  npm: string;
  service: string;
  herdr: string;
  claude: string;
  codex: string;
}

export function installLines(version: string): InstallLines {
  return {
    npm: `npm install -g --prefix ~/.local ${releaseTarballUrl(version)}`,
    service: 'dogsled service install',
    herdr: `herdr plugin install ${PROJECT} --ref v${version} --yes`,
    claude: `claude plugin marketplace add ${PROJECT}#v${version} && claude plugin install dogsled@dogsled`,
    codex: `codex plugin marketplace add ${PROJECT} --ref v${version} && codex plugin add dogsled@dogsled`,
  };
}
