// The child contract: what dogsled asks of every child it starts, written per launch to
// launches/<id>.contract.md (state/records/launch-files.ts; Pi and Claude read it from there, Codex
// gets launch-line.ts's short inline form). It names the facts of this launch so the child never has
// to guess them.

/** A task a child could actually read in one go; anything larger is a mistake (a binary, a log). */
export const TASK_MAX_BYTES = 1024 * 1024;

export interface ContractFacts {
  name: string;
  kind: string;
  host: string;
  /** The owner's pane, or null when the owner runs outside Herdr. */
  owner: string | null;
  cwd: string;
  branch: string | null;
  taskFile: string;
}

export function childContract(facts: ContractFacts): string {
  const owner = facts.owner === null ? 'your owner' : `your owner (pane ${facts.owner})`;
  const where =
    facts.branch === null
      ? `You work in ${facts.cwd}.`
      : `You work in ${facts.cwd}, a worktree of its own on branch \`${facts.branch}\`. Stay on that branch.`;
  return `# dogsled child contract

You are **${facts.name}**, a ${facts.kind} agent that dogsled started on host ${facts.host} for ${owner}.
Your task is in ${facts.taskFile}. Read it before you start.

## Your work

- ${where}
- Commit your changes as you go, with messages that say what changed. Do not push, merge or delete
  branches unless the task says so: your owner lands the branch.
- Keep to the task. If you need a decision you cannot make yourself, ask it as the last message of
  your turn and stop; your owner sees it and answers through your inbox.

## Messages

Messages for you (from ${owner} or another agent) arrive through dogsled's inbox, never as keystrokes
in your terminal: your harness shows them at the start or end of a turn. A message that arrives while
you work belongs to the same task.

## Finishing

When the whole task is done and committed, run \`dogsled done\` in that same final working turn, then
end your turn with a short reply: what you did, what you could not do, and anything your owner must
check. \`dogsled done\` refuses while your worktree has uncommitted changes or while children or
tickets of yours are still open: commit or close them, then run it again. After \`dogsled done\`,
dogsled captures your reply for ${owner}, closes this pane and the worktree, and keeps the branch.
`;
}
