/** Slash-command parsing for the chat input. */

import type { CommandInfo } from "../protocol";

export type SlashName = "compact" | "cost" | "clear" | "new" | "sessions" | "context" | "mcp" | "permissions" | "plan" | "help";

export interface SlashCommandInfo {
  name: SlashName;
  usage: string;
  description: string;
}

export const SLASH_COMMANDS: SlashCommandInfo[] = [
  { name: "compact", usage: "/compact [instructions]", description: "Summarise the conversation to free context" },
  { name: "cost", usage: "/cost", description: "Show tokens and cost of this session" },
  { name: "new", usage: "/new", description: "Start a new chat (this one stays in the history)" },
  { name: "clear", usage: "/clear", description: "The same as /new: nothing is deleted" },
  { name: "sessions", usage: "/sessions", description: "Chat history: resume, rename or delete a conversation" },
  { name: "context", usage: "/context", description: "Show what fills the context window" },
  { name: "mcp", usage: "/mcp", description: "List the MCP servers, their state and tools" },
  { name: "permissions", usage: "/permissions", description: "List the permission rules in force and where they are written" },
  { name: "plan", usage: "/plan [off]", description: "Plan mode: read and search only, a plan in the task list; /plan off approves it" },
  { name: "help", usage: "/help", description: "List the slash commands" },
];

/** A custom command (agent/commands) as the input offers it: `/review <file>`. */
export function customUsage(c: CommandInfo): string {
  return `/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""}`;
}

export type ParsedInput =
  | { type: "empty" }
  | { type: "prompt"; text: string }
  | { type: "command"; name: SlashName; args: string }
  | { type: "custom"; name: string; args: string }
  | { type: "unknown"; name: string };

/**
 * `/compact keep the API notes` → command compact with args.
 * A leading `//` escapes a literal slash (`//etc/hosts is…` → prompt `/etc/hosts is…`).
 * Anything whose first word is not a known command is reported as unknown,
 * unless it looks like a path (`/usr/bin …` contains another slash).
 */
export function parseInput(raw: string, custom: readonly CommandInfo[] = []): ParsedInput {
  const text = raw.trim();
  if (!text) return { type: "empty" };
  if (text.startsWith("//")) return { type: "prompt", text: text.slice(1) };
  if (!text.startsWith("/")) return { type: "prompt", text };
  const m = /^\/(\S*)(?:\s+([\s\S]*))?$/.exec(text);
  const word = (m?.[1] ?? "").toLowerCase();
  const args = (m?.[2] ?? "").trim();
  const known = SLASH_COMMANDS.find((c) => c.name === word);
  if (known) return { type: "command", name: known.name, args };
  const mine = custom.find((c) => c.name.toLowerCase() === word);
  if (mine) return { type: "custom", name: mine.name, args };
  if (word.includes("/")) return { type: "prompt", text };
  return { type: "unknown", name: word };
}

export interface Completion {
  name: string;
  usage: string;
  description: string;
  custom: boolean;
}

/** Commands offered while typing `/co` at the very start of the input: built-ins, then custom commands. */
export function slashCompletions(raw: string, custom: readonly CommandInfo[] = []): Completion[] {
  const m = /^\/([\w-]*)$/.exec(raw);
  if (!m) return [];
  const prefix = m[1].toLowerCase();
  return [
    ...SLASH_COMMANDS.filter((c) => c.name.startsWith(prefix)).map((c) => ({ ...c, custom: false })),
    ...custom
      .filter((c) => c.name.toLowerCase().startsWith(prefix))
      .map((c) => ({ name: c.name, usage: customUsage(c), description: `${c.description} (${c.source})`, custom: true })),
  ];
}
