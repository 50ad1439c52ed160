/** The `agentls.*` configuration → the `AgentSettings` the server accepts. */
import type { AgentSettings } from "../protocol";

const CLIENT_ONLY = new Set(["pythonPath"]);

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
 * Drops client-only keys (pythonPath), empty strings and nulls ("use the
 * server default") and anything that is not a known field.
 */
export function toAgentSettings(section: Record<string, unknown> | undefined): AgentSettings {
  const out: Record<string, unknown> = {};
  const known = ["model", "compactModel", "baseUrl", "contextWindow", "outputReserve", "maxTokens", "cacheTtl", "cacheControl", "thinking", "prices", "thresholds", "approvals", "diagnosticsWaitMs", "mcpServers", "permissions"];
  for (const key of known) {
    if (CLIENT_ONLY.has(key) || !section) continue;
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
