// `dogsled service install|status|uninstall [--json]`: `dogsled serve` under the user's service
// manager (service/install/manager.ts). install writes the unit for this dogsled, this node and
// this shell's PATH, enables and (re)starts it; status says what the unit runs and whether it does;
// uninstall stops and removes it.

import {
  type InstallReport,
  installService,
  type ServiceManagerIO,
  type ServiceReport,
  serviceStatus,
  uninstallService,
} from '../../service/actions/service.js';
import { DogsledError } from '../../service/core/common/errors.js';
import { plainLine } from '../../service/core/text/clean.js';
import type { CliContext } from '../context.js';
import { commandLine } from '../render/text.js';

export interface ServiceFlags {
  json?: boolean;
}

const USAGE = 'install | status | uninstall';

export async function serviceCommand(verb: string | undefined, flags: ServiceFlags, ctx: CliContext) {
  const io: ServiceManagerIO = { ...ctx, platform: process.platform };
  switch (verb) {
    case 'install': {
      const report = await installService(io);
      ctx.out(flags.json ? `${JSON.stringify(report)}\n` : `${installText(report).join('\n')}\n`);
      return 0;
    }
    case 'status':
    case undefined: {
      const report = await serviceStatus(io);
      ctx.out(flags.json ? `${JSON.stringify(report)}\n` : `${statusText(report).join('\n')}\n`);
      return 0;
    }
    case 'uninstall': {
      const report = await uninstallService(io);
      if (flags.json) ctx.out(`${JSON.stringify(report)}\n`);
      else ctx.out(`${report.removed ? 'removed' : 'not installed:'} ${plainLine(report.file)}\n`);
      return 0;
    }
    default:
      throw new DogsledError(`unknown verb "${plainLine(verb)}" (${USAGE})`);
  }
}

function installText(report: InstallReport): string[] {
  return [
    `wrote ${plainLine(report.file)} (${report.manager}), with ${report.env.join(', ')} of this shell`,
    ...statusText(report).slice(1),
    `  log       ${plainLine(report.log)}`,
  ];
}

function statusText(report: ServiceReport): string[] {
  const lines = [`${report.manager}  ${plainLine(report.file)}`];
  if (!report.installed) {
    lines.push('  not installed: dogsled service install');
    return lines;
  }
  lines.push(`  runs      ${report.command ? commandLine(report.command) : 'nothing readable'}`);
  const state =
    report.active === null
      ? 'unknown'
      : `${report.active ? 'running' : 'stopped'}${report.pid ? ` (pid ${report.pid})` : ''}`;
  const enabled = report.enabled === null ? '' : report.enabled ? ', enabled' : ', not enabled';
  lines.push(`  state     ${state}${enabled}`);
  if (report.linger === false) {
    lines.push('  note      stops when you log out; to keep it: loginctl enable-linger $USER');
  }
  if (report.problem) lines.push(`  problem   ${plainLine(report.problem)}`);
  return lines;
}
