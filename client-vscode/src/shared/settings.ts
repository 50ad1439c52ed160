/**
 * The `agentls.*` configuration → the `AgentSettings` the server accepts.
 *
 * No bounds or defaults here: package.json declares them and the server
 * enforces them (tests/unit/test_settings_schema.py keeps both, and these two
 * key lists, equal to the server's schema, agent/settings_schema.py).
 */
import type { AgentSettings } from "../protocol";

/** The keys sent to the server: the AgentSettings of docs/protocol.md. */
export const SERVER_KEYS = ["model", "compactModel", "baseUrl", "contextWindow", "outputReserve", "maxTokens", "cacheTtl", "cacheControl", "cacheDiagnostics", "toolSearch", "thinking", "prices", "thresholds", "approvals", "diagnosticsWaitMs", "mcpServers", "permissions"];
/** The keys the extension reads itself and never sends (the interpreter that starts the server). */
export const CLIENT_ONLY = ["pythonPath"];

function clean(v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  if (typeof v === "string") return v.trim() === "" ? undefined : v.trim();
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v === "boolean") return v;
  if (Array.isArray(v)) return v;
  if (typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
      const c = clean(val);
      if (c !== undefined) out[k] = c;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return undefined;
}

/**
 * Keeps the server's keys only (so not pythonPath), without empty strings
 * and nulls ("use the server default").
 */
export function toAgentSettings(section: Record<string, unknown> | undefined): AgentSettings {
  const out: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    if (!section) continue;
    const c = clean(section[key]);
    if (c !== undefined) out[key] = c;
  }
  // `thresholds.autoCompact: null` is not "the default": it turns auto-compaction off
  const thresholds = section?.thresholds as Record<string, unknown> | undefined;
  if (thresholds && typeof thresholds === "object" && thresholds.autoCompact === null) {
    out.thresholds = { ...((out.thresholds as Record<string, unknown>) ?? {}), autoCompact: null };
  }
  return out as AgentSettings;
}
