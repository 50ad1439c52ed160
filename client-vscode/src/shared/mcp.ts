/** `/mcp`: the MCP servers, their state and tools — as Markdown (chat panel) and quick-pick rows (palette). */
import type { McpServersResult, McpServerStatus } from "../protocol";

const STATE_ICON: Record<string, string> = {
  running: "$(pass-filled)",
  failed: "$(error)",
  starting: "$(loading~spin)",
  idle: "$(circle-outline)",
  stopped: "$(debug-stop)",
  disabled: "$(circle-slash)",
};

function esc(s: string): string {
  return s.replace(/[|`*_[\]<>]/g, (c) => `\\${c}`);
}

/** Names of secret env vars / headers: shown as names only (the values never reach the client). */
function secrets(s: McpServerStatus): string {
  const names = [...s.envKeys.map((k) => `env ${k}`), ...s.headerKeys.map((k) => `header ${k}`)];
  return names.length ? ` (${names.join(", ")}: hidden)` : "";
}

export function mcpMarkdown(r: McpServersResult): string {
  if (r.servers.length === 0) {
    return "No MCP servers configured. Add them to the `agentls.mcpServers` setting (the `mcp.json` shape).";
  }
  const lines = ["**MCP servers**", ""];
  for (const s of r.servers) {
    lines.push(`- **${esc(s.name)}** — ${s.state} · ${s.transport} \`${s.target.replace(/`/g, "'")}\`${secrets(s)}`);
    if (s.error) lines.push(`  - ⚠ ${esc(s.error.split("\n")[0])}`);
    for (const t of s.tools) {
      const offered = t.qualifiedName ? `\`${t.qualifiedName}\`` : `${esc(t.name)} (not offered)`;
      lines.push(`  - ${offered} · ${t.approval}${t.description ? ` — ${esc(t.description)}` : ""}`);
    }
  }
  lines.push("", `Tool-list changes this session: ${r.toolListChanges} (each one prompt-cache break).`);
  return lines.join("\n");
}

export interface McpPickRow {
  label: string;
  description?: string;
  detail?: string;
  kind: "server" | "tool";
  server: string;
}

export function mcpPickRows(r: McpServersResult): McpPickRow[] {
  const rows: McpPickRow[] = [];
  for (const s of r.servers) {
    rows.push({
      kind: "server",
      server: s.name,
      label: `${STATE_ICON[s.state] ?? ""} ${s.name}`.trim(),
      description: `${s.state} · ${s.transport} · ${s.tools.length} tool${s.tools.length === 1 ? "" : "s"}`,
      detail: s.error ? s.error.split("\n")[0] : s.target,
    });
    for (const t of s.tools) {
      rows.push({
        kind: "tool",
        server: s.name,
        label: `    $(tools) ${t.name}`,
        description: `${t.approval}${t.qualifiedName ? ` · ${t.qualifiedName}` : " · not offered"}`,
        detail: t.description || undefined,
      });
    }
  }
  return rows;
}
