// The full command line: every command with its flags and help, parsed by commander. A command's
// module is loaded only when it runs. Hot commands may skip this file entirely (see fast-path.ts).

import { Command, CommanderError, Option } from 'commander';
import { DogsledError } from '../service/core/common/errors.js';
import { EXIT } from '../service/core/common/exit-codes.js';
import { VERSION } from '../service/core/common/version.js';
import { clip, plainLine } from '../service/core/text/clean.js';
import { namedError, runCommand } from './command.js';
import { type CliContext, contextFromProcess, type GlobalOptions } from './context.js';
import { STATUS_INTERVAL_DEFAULT } from './flags.js';
import { LATER_COMMANDS } from './later.js';

/** A command's entry point: its positional arguments, then its flags and the context. */
// biome-ignore lint/suspicious/noExplicitAny: each command declares its own arguments and flags.
type Entry = (...args: any[]) => Promise<number | undefined>;

/** Where the wrapped actions hand their exit status back to runProgram. */
type Done = (code: number) => void;

/**
 * The one action wrapper: loads the command's module when it runs, gives it a context, and passes
 * its exit status (through runCommand, which also names it in errors) back to runProgram.
 */
function action(done: Done, load: () => Promise<Entry>) {
  return async (...args: unknown[]) => {
    // commander passes the positional arguments, then the options, then the command itself.
    const command = args.at(-1) as Command;
    const ctx = contextFromProcess(command.optsWithGlobals() as GlobalOptions);
    // A subcommand is named with its group (`inbox list`), as its errors are.
    const parent = command.parent?.parent ? `${command.parent.name()} ` : '';
    done(
      await runCommand(`${parent}${command.name()}`, async () => (await load())(...args.slice(0, -1), ctx)),
    );
  };
}

/** Every command and flag; exported so tests can cover each one. */
export function buildProgram(done: Done): Command {
  const program = new Command('dogsled')
    .description('Host status and placement for coding agents across Herdr hosts')
    .version(VERSION, '-V, --version', 'print the version')
    .option('--config <path>', 'host policy file (default $DOGSLED_CONFIG or ~/.config/dogsled/config.toml)')
    .addOption(
      new Option(
        '--terminal <backend>',
        'tmux: use tmux when Herdr does not answer, even outside tmux',
      ).choices(['auto', 'tmux']),
    )
    .showSuggestionAfterError(true)
    // Every command takes --config and --terminal: its own --help says so.
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({ outputError: () => {} });

  program
    .command('serve')
    .description('measure this host and publish its snapshot every interval')
    .option('--interval <seconds>', 'seconds between measurements', '10')
    .option('--once', 'publish one snapshot (with a CPU sample) and exit')
    .action(action(done, async () => (await import('./commands/serve.js')).serveCommand));

  program
    .command('status')
    .description('hosts, agents and reservations')
    .option('--json', 'one JSON document')
    .option('--line', 'one line for the tab row')
    .option('--brief', 'at most six lines for prompt hooks')
    .option('--watch', 'refresh until interrupted')
    .option('--interval <seconds>', `refresh interval for --watch (default ${STATUS_INTERVAL_DEFAULT})`)
    .action(action(done, async () => (await import('./commands/status.js')).statusCommand));

  program
    .command('place')
    .description('reserve room on the host with the most headroom')
    .option('--json', 'print the placement as JSON')
    .option('--host <id>', 'pin by host id or label')
    .option('--wait', 'when every host is full, wait for admission instead of exiting 1')
    .option('--max <duration>', 'one deadline for the whole command (default 30m)')
    .addOption(new Option('--branch <name>', 'create or reuse the branch worktree on that host'))
    .addOption(new Option('--base <ref>', 'start a new branch from this ref'))
    .addOption(new Option('--repo <path>', 'repository for --branch'))
    .action(action(done, async () => (await import('./commands/place.js')).placeCommand));

  program
    .command('doctor')
    .description('report worktrees, branches, repositories, jobs, targets, disk and processes')
    .option('--json', 'one JSON document')
    .option('--host <id>', 'the host to report: local (default) or a peer, by id or label')
    .action(action(done, async () => (await import('./commands/doctor.js')).doctorCommand));

  program
    .command('prune')
    .description('remove what loses no work: worktrees, branches, jobs, targets, repositories')
    .argument('[categories...]', 'worktrees, branches, jobs, targets, repositories, panes (default: all)')
    .option('--yes', 'do not ask before removing (every safety check still runs)')
    .option('--json', 'print {results,skipped,failures} as one JSON document')
    .option('--host <id>', 'the host to prune: local (default) or a peer, by id or label')
    .action(action(done, async () => (await import('./commands/prune.js')).pruneCommand));

  program
    .command('run')
    .description('run a command as a job on the host with room, in its own tab')
    .argument('<command...>', 'the command and its arguments (after --)')
    .option('--wait', 'wait for admission and the job; exit with its status')
    .option('--host <id>', 'pin by host id or label')
    .option('--cwd <dir>', 'directory to run in (default: the current one)')
    .option('--timeout <duration>', 'kill the job after this long (default unlimited)')
    .option('--idle-timeout <duration>', 'kill the job after this long without output (default unlimited)')
    .option('--max <duration>', 'one deadline for the whole command (default 30m)')
    .option('--json', 'print the started job or the ticket as JSON')
    .addOption(new Option('--branch <name>', 'run in the branch worktree'))
    .addOption(new Option('--base <ref>', 'start a new branch from this ref'))
    .action(action(done, async () => (await import('./commands/run.js')).runJobCommand));

  program
    .command('exec')
    .description('the job wrapper a job pane runs (started by run; not for direct use)')
    .argument('<id>', 'job id')
    .argument('[command...]', "the job's command (after --), checked against its record")
    .action(
      action(done, async () => {
        const { execCommand } = await import('./commands/exec.js');
        return (id: string, command: string[], _flags: object, ctx: CliContext) =>
          execCommand(id, command, ctx);
      }),
    );

  program
    .command('ps')
    .description('list jobs that have not ended (--all: also ended ones)')
    .option('--all', 'include ended jobs')
    .option('--json', 'one JSON document')
    .action(action(done, async () => (await import('./commands/ps.js')).psCommand));

  program
    .command('logs')
    .description("print a job's output (it is kept after the tab closes)")
    .argument('<job>', 'job id, or the ticket a queued run printed')
    .option('--follow', 'keep printing until the job ends')
    .action(action(done, async () => (await import('./commands/logs.js')).logsCommand));

  program
    .command('stop')
    .description('stop a job: kill its process group')
    .argument('<job>', 'job id, or the ticket a queued run printed')
    .option('--json', 'print the final record as JSON')
    .action(action(done, async () => (await import('./commands/stop.js')).stopCommand));

  program
    .command('wait')
    .description('wait for a job to end and exit with its status (124: still running at --max)')
    .argument('<job>', 'job id, or the ticket a queued run printed')
    .option('--max <duration>', 'give up after this long (default 30m); the job keeps running')
    .action(action(done, async () => (await import('./commands/wait.js')).waitCommand));

  program
    .command('cancel')
    .description('cancel a pending ticket')
    .argument('<ticket>', 'ticket id')
    .option('--json', 'print the cancelled ticket as JSON')
    .action(action(done, async () => (await import('./commands/cancel.js')).cancelCommand));

  program
    .command('items')
    .description("an owner's items and queued tickets")
    .option('--owner <pane>', 'only this owner pane')
    .option('--json', 'print {items,queue}')
    .action(action(done, async () => (await import('./commands/items.js')).itemsCommand));

  program
    .command('history')
    .description('ended children and jobs of the last 30 days, with their receipts')
    .option('--json', 'print {entries}, or the statistics with --stats')
    .option('--since <d>', 'ended within a duration (90m, 48h, 7d) or since a day (2026-12-01)')
    .option('--owner <pane>', 'only this owner pane')
    .option('--host <h>', 'only this host (local, or a peer id)')
    .option('--search <text>', 'name, task, branch, model, harness or outcome contains it')
    .option('--stats', 'runs, success rate, time, tokens and cost per harness, model, host and day')
    .action(action(done, async () => (await import('./commands/history.js')).historyCommand));

  program
    .command('board')
    .description("an owner's children, jobs and tickets: TO LAND, ATTENTION, RUNNING, WAITING")
    .option('--json', 'one JSON document (what the Pi widget and the sidebar draw)')
    .option('--owner <pane>', "the owner pane (default: the caller's Herdr or tmux pane)")
    .option('--open', "open or reuse the caller's board, docked at the left of its Herdr tab")
    .option('--toggle', "close the caller's docked board when it is open, else open it")
    .option('--dismiss <id>', 'mark an ATTENTION row seen (a job, ticket or item id): it moves to DONE')
    .action(action(done, async () => (await import('./commands/board.js')).boardCommand));

  program
    .command('sidebar')
    .description('the work board app (hosts, agents and jobs, todos) in this terminal')
    .option('--owner <pane>', 'whose work to show (default: $DOGSLED_OWNER, set by board --open)')
    .action(action(done, async () => (await import('./commands/sidebar.js')).sidebarCommand));

  program
    .command('dash')
    .description('a live page of the fleet, the boards, history and receipts, on 127.0.0.1 with a token')
    .option('--port <n>', 'the port to listen on (default: a free one)')
    .action(action(done, async () => (await import('./commands/dash.js')).dashCommand));

  // Hidden: peers run it as `host VERB ARGS...`, which the fast path takes with every word as data.
  program
    .command('host', { hidden: true })
    .argument('[words...]')
    .allowUnknownOption(true)
    .helpOption(false)
    .action(
      action(done, async () => {
        const { hostCommand } = await import('./commands/host.js');
        return (words: string[], _flags: object, ctx: CliContext) => hostCommand(words, ctx);
      }),
    );

  program
    .command('machine')
    .description("the fleet's hosts: Herdr's saved machines, else [[hosts]] in the config")
    .argument('[verb]', 'list (default), rename ID LABEL, disable ID, enable ID, reconnect ID, add TARGET')
    .argument('[args...]', "the verb's arguments")
    .option('--label <name>', 'add: the label (and id) of the new host')
    .option('--json', 'one JSON document')
    .action(
      action(done, async () => {
        const { machineCommand } = await import('./commands/machine.js');
        return (verb: string | undefined, args: string[], flags: object, ctx: CliContext) =>
          machineCommand(verb, args, flags, ctx);
      }),
    );

  program
    .command('service')
    .description('run `dogsled serve` under your service manager (systemd user unit, launchd agent)')
    .argument('[verb]', 'status (default), install (write, enable and start), uninstall')
    .option('--json', 'one JSON document')
    .action(
      action(done, async () => {
        const { serviceCommand } = await import('./commands/service.js');
        return (verb: string | undefined, flags: object, ctx: CliContext) => serviceCommand(verb, flags, ctx);
      }),
    );

  program
    .command('retry')
    .description('read a peer again now, whatever its backoff')
    .argument('<host>', 'host id or label')
    .option('--json', 'print the host as status --json shows it')
    .action(action(done, async () => (await import('./commands/retry.js')).retryCommand));

  program
    .command('agent')
    .description('start a child agent on the host with room, told its task by file')
    .option('--kind <kind>', 'pi, claude or codex (default pi with --profile)')
    .option('--name <name>', "the child's Herdr agent name")
    .option('--message <text>', 'the task')
    .option('--message-file <path>', 'read the task from a file (- for stdin)')
    .option('--profile <name>', 'a Pi profile of the host that runs the child')
    .option('--branch <name>', "start the child in the branch's own worktree")
    .option('--base <ref>', 'start a new branch from this ref')
    .option('--host <id>', 'pin by host id or label')
    .option('--cwd <dir>', 'directory (or repository) to work in (default: the current one)')
    .option('--wait', 'when every host is full, wait for admission instead of exiting 1')
    .option('--max <duration>', 'one deadline for the whole command (default 30m)')
    .option('--json', 'print the started child or the ticket as JSON')
    .action(action(done, async () => (await import('./commands/agent.js')).agentCommand));

  program
    .command('track')
    .description('make an existing pane one of your children')
    .argument('<host>', 'host id or label')
    .argument('<pane>', 'Herdr pane id')
    .option('--name <name>', 'the name to know the child by')
    .option('--json', 'print the item as JSON')
    .action(action(done, async () => (await import('./commands/track.js')).trackCommand));

  program
    .command('read')
    .description("a child's or job's newest output and the child's captured final reply")
    .argument('<target>', "a child's name, or an item, pane, launch or job id")
    .option('--host <id>', 'the host the target runs on')
    .option('--json', 'print {target,kind,item,name,host,pane,output,reply}')
    .action(action(done, async () => (await import('./commands/read.js')).readCommand));

  program
    .command('done')
    .description('as a child: my whole task is complete (run it in your final working turn)')
    .option('--json', 'print the mark as JSON')
    .action(action(done, async () => (await import('./commands/done.js')).doneCommand));

  program
    .command('close')
    .description('close a child now: its pane, and its agent worktree when nothing else uses it')
    .argument('<pane>', 'the Herdr pane id')
    .option('--host <id>', "the pane's host (default: its open item's, else this host)")
    .option('--json', 'print {pane,worktree,pane_closed}')
    .action(action(done, async () => (await import('./commands/close.js')).closeCommand));

  program
    .command('profiles')
    .description('list the Pi profiles of this host (~/.config/dogsled/profiles)')
    .option('--json', 'print {dir,profiles} as one JSON document')
    .action(action(done, async () => (await import('./commands/profiles.js')).profilesCommand));

  program
    .command('send')
    .description("send a message to an agent's inbox, on this host or a peer")
    .argument('<target>', 'an agent name or a pane id')
    .option('--host <id>', 'the host of the target, by id or label (default this host)')
    .option('--kind <kind>', 'message, task, reply, blocked, … (default message)')
    .option('--message <text>', 'the message text')
    .option('--message-file <path>', 'read the message from a file (- for stdin)')
    .action(action(done, async () => (await import('./commands/send.js')).sendCommand));

  // A group alone is one line naming what it takes, never a page of help on stderr.
  const group = (name: string, subcommands: string) => (what: string | undefined) => {
    const got = what === undefined ? '' : `no subcommand "${clip(plainLine(what), 40)}"; `;
    throw new DogsledError(`${name}: ${got}which one? ${subcommands}`);
  };
  const inbox = program
    .command('inbox')
    .description("this agent's inbox (its Herdr terminal)")
    .argument('[subcommand]')
    .action(group('inbox', 'list, claim or ack'));
  inbox
    .command('list')
    .description('what this terminal received and sent')
    .option('--json', 'print {pane,terminal,received,sent,lines}')
    .action(action(done, async () => (await import('./commands/inbox.js')).inboxListCommand));
  inbox
    .command('claim')
    .description('register as the reader and lease the next batch (JSON)')
    .option('--harness <name>', 'the reader registering (default pi)')
    .action(action(done, async () => (await import('./commands/inbox.js')).inboxClaimCommand));
  inbox
    .command('ack')
    .description('mark claimed records delivered')
    .argument('<ids...>', 'record ids')
    .action(
      action(done, async () => {
        const { inboxAckCommand } = await import('./commands/inbox.js');
        return (ids: string[], _flags: object, ctx: CliContext) => inboxAckCommand(ids, ctx);
      }),
    );

  const hook = program
    .command('hook')
    .description('harness hooks: inbox, context, gate, state (JSON on stdin)')
    .argument('[subcommand]')
    .action(group('hook', 'inbox, context, gate or state'));
  const hookAction = (sub: 'inbox' | 'context' | 'gate' | 'state') =>
    action(done, async () => {
      const { hookCommand } = await import('./commands/hook.js');
      return (options: object, ctx: CliContext) => hookCommand({ ...options, sub }, ctx);
    });
  hook
    .command('inbox')
    .description('deliver pending inbox records to Claude Code or Codex')
    .option('--harness <name>', 'claude or codex')
    .option('--event <name>', 'Stop or UserPromptSubmit')
    .action(hookAction('inbox'));
  hook
    .command('context')
    .description("the caller's own work, then the fleet, as prompt context")
    .option('--harness <name>', 'claude, codex or pi')
    .option('--event <name>', 'SessionStart or UserPromptSubmit (default)')
    .action(hookAction('context'));
  hook
    .command('gate')
    .description("the stop gate's reminder about finished children (Pi)")
    .action(hookAction('gate'));
  hook
    .command('state')
    .description("record the agent's state a Claude Code notification means (tmux)")
    .option('--harness <name>', 'claude')
    .option('--event <name>', 'Notification')
    .action(hookAction('state'));

  program
    .command('quota')
    .description('cached quota of the CLIProxy accounts, collected when older than five minutes')
    .option('--json', 'print the version-1 snapshot')
    .option('--cached', 'read only quota.json, however old')
    .option('--refresh', 'collect now')
    // Hidden: a collector pushes its snapshot with it (and through `host quota-store`).
    .addOption(new Option('--store', 'store one snapshot from stdin (newer wins)').hideHelp())
    .action(action(done, async () => (await import('./commands/quota.js')).quotaCommand));

  program
    .command('mcp')
    .description('the dogsled tools over MCP stdio, for Claude Code, Codex and Pi (caller: $HERDR_PANE_ID)')
    .action(action(done, async () => (await import('./commands/mcp.js')).mcpCommand));

  for (const later of LATER_COMMANDS) {
    program
      .command(later.name)
      .summary(`${later.summary} (later)`)
      .description(`${later.summary} (not available in this build yet: ${later.waitsFor})`)
      .allowUnknownOption(true)
      .allowExcessArguments(true)
      .action(
        action(done, async () => async () => {
          throw new DogsledError(`not available in this build yet (${later.waitsFor})`);
        }),
      );
  }
  return program;
}

/**
 * The command commander failed in, as its errors are named: a bad global option (`status
 * --terminal x`) fails before dispatch, so it is the first word that is a command; a group's
 * subcommand (`inbox ack`) goes with its group.
 */
function failedCommand(program: Command, args: string[], current: string | undefined): string | undefined {
  const top = current ?? args.find((word) => program.commands.some((command) => command.name() === word));
  if (top === undefined) return undefined;
  const group = program.commands.find((command) => command.name() === top);
  const sub = group?.commands.find((command) => command.name() === args[args.indexOf(top) + 1]);
  return sub === undefined ? top : `${top} ${sub.name()}`;
}

/**
 * Parses argv (after `node dogsled`) and runs the command; returns its exit status. Commander's own
 * errors (unknown option or command, missing argument) become DogsledErrors naming the command, so
 * main.ts prints them like every other error.
 */
export async function runProgram(args: string[]): Promise<number> {
  let code: number = EXIT.ok;
  let current: string | undefined;
  const program = buildProgram((status) => {
    code = status;
  });
  program.hook('preSubcommand', (_program, subcommand) => {
    current = subcommand.name();
  });
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // --help and --version; without a command, the help on stderr is the explanation (exit 2).
    if (error.exitCode === 0) return EXIT.ok;
    if (error.code === 'commander.help') return EXIT.error;
    const failure = new DogsledError(error.message.replace(/^error: /, ''));
    const named = failedCommand(program, args, current);
    throw named === undefined ? failure : namedError(named, failure);
  }
  return code;
}
