// What the harness hooks print. Claude Code and Codex read one JSON object: at Stop
// `{"decision":"block","reason":…}` continues the turn with the reason as the next instruction; at
// UserPromptSubmit and SessionStart `hookSpecificOutput.additionalContext` goes beside the prompt
// (never a block there: a blocked prompt ends the turn). Pi takes plain text.

export function stopBlock(reason: string): string {
  return `${JSON.stringify({ decision: 'block', reason })}\n`;
}

export function additionalContext(event: string, text: string): string {
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } })}\n`;
}
