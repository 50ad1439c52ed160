/**
 * /permissions in the panel: one line per rule (a list wraps in a narrow panel; the table it replaces broke
 * words at ~290 px), each naming the file it is written in. The server says "settings" for the client's own
 * setting (agentls.permissions); which of VS Code's settings files holds the rule is the client's to tell.
 */
import type { PermissionRule } from "../protocol";

type Lists = Partial<Record<PermissionRule["decision"], unknown>>;

/** `agentls.permissions` at each level (vscode's inspect()). */
export interface InspectedPermissions {
  globalValue?: Lists;
  workspaceValue?: Lists;
  workspaceFolderValue?: Lists;
}

const holds = (lists: Lists | undefined, r: PermissionRule) => {
  const list = lists?.[r.decision];
  return Array.isArray(list) && list.includes(r.rule);
};

/** Where a rule is written, in the words of the user's files. */
export function ruleSource(r: PermissionRule, inspected: InspectedPermissions | undefined): string {
  if (r.source !== "settings") return r.source === ".agents/settings.json" ? "`.agents/settings.json` (workspace)" : r.source;
  const found = [
    holds(inspected?.workspaceFolderValue, r) && "folder settings (`.vscode/settings.json`)",
    holds(inspected?.workspaceValue, r) && "workspace settings (`.vscode/settings.json` or the `.code-workspace` file)",
    holds(inspected?.globalValue, r) && "user settings",
  ].filter(Boolean);
  return found.length ? found.join(", ") : "settings (`agentls.permissions`)";
}

/** A rule as inline code, whatever backticks it holds (a longer run of backticks around it). */
function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = "`".repeat(longest + 1);
  return longest ? `${ticks} ${text} ${ticks}` : `${ticks}${text}${ticks}`;
}

export function permissionsMarkdown(rules: PermissionRule[], inspected: InspectedPermissions | undefined): string {
  if (!rules.length) {
    return "No permission rules yet: add them in `agentls.permissions` or `.agents/settings.json`, or answer an approval with **Always**.";
  }
  const lines = rules.map((r) => `- **${r.decision}** ${code(r.rule)} — ${ruleSource(r, inspected)}`);
  return ["**Permission rules** (deny wins over ask wins over allow)", "", ...lines].join("\n");
}
