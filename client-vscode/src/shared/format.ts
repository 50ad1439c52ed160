/** Pure formatting helpers: status bar text/level, tooltips, usage, cost. */
import type {
  ContextCategories,
  ContextLevel,
  ContextResult,
  ContextUsage,
  CompactResult,
  CostResult,
  SubagentCost,
  LayerStat,
  NextRequest,
  Usage,
} from "../protocol";

/** 84123 → "84K", 1_250_000 → "1.3M", 950 → "950". */
export function formatTokens(n: number): string {
  if (!Number.isFinite(n)) return "?";
  const abs = Math.abs(n);
  if (abs < 1000) return String(Math.round(n));
  if (abs < 10_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, "")}K`;
  if (abs < 1_000_000) return `${Math.round(n / 1000)}K`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

/** Token counts for the meter: one decimal under 100K, so the fraction reads as exactly as the percentage. */
export function meterTokens(n: number): string {
  const abs = Math.abs(n);
  if (!Number.isFinite(n) || abs < 1000 || (abs >= 100_000 && abs < 1_000_000)) return formatTokens(n);
  if (abs < 100_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, "")}K`;
  return `${(n / 1_000_000).toFixed(2).replace(/\.?0+$/, "")}M`;
}

export function formatPercent(fraction: number): string {
  if (!Number.isFinite(fraction)) return "?%";
  return `${Math.round(Math.max(0, fraction) * 100)}%`;
}

type Meter = Pick<ContextUsage, "used" | "window" | "effectiveWindow" | "utilization"> & {
  nextRequest?: NextRequest;
  autoCompactAt?: number | null;
};

/** How close to auto-compaction the status bar starts to warn (percentage points). */
export const COMPACT_WARN_POINTS = 10;

/**
 * `auto-compact at 85%: 3% left` while utilization is within ten points below the threshold;
 * "" when further away, when it is reached (the meter then says "compacts next") or when off.
 */
export function compactWarning(u: Meter): string {
  const at = u.autoCompactAt;
  if (at === null || at === undefined || !Number.isFinite(at) || !Number.isFinite(u.utilization)) return "";
  const atPct = Math.round(at * 100);
  const nowPct = Math.round(u.utilization * 100);
  if (nowPct < atPct - COMPACT_WARN_POINTS || u.utilization >= at) return "";
  return `auto-compact at ${atPct}%: ${Math.max(0, atPct - nowPct)}% left`;
}

/**
 * The one meter (docs/protocol.md, Utilization): used over the usable window
 * (window − output reserve), e.g. `42% · 84K/180K`; the fraction and the
 * percentage are the same number.
 */
export function meterText(u: Meter): string {
  const next = u.nextRequest && u.nextRequest !== "none" ? ` · ${NEXT_SHORT[u.nextRequest]}` : "";
  return `${formatPercent(u.utilization)} · ${meterTokens(u.used)}/${meterTokens(u.effectiveWindow)}${next}`;
}

/** Status bar text, e.g. `$(pulse) 42% · 84K/180K`, or `$(warning) 82% · 148K/180K · auto-compact at 85%: 3% left`. */
export function statusText(u: Meter): string {
  const warning = compactWarning(u);
  return warning ? `$(warning) ${meterText(u)} · ${warning}` : `$(pulse) ${meterText(u)}`;
}

const NEXT_SHORT: Record<Exclude<NextRequest, "none">, string> = {
  compact: "compacts next",
  trim: "trims next",
  tooLarge: "too large",
};

/** What preparing the next request will do about its size, in a sentence. */
export function nextRequestSentence(next: NextRequest | undefined): string {
  switch (next) {
    case "compact":
      return "The next request first compacts the conversation (a summary replaces the older turns).";
    case "trim":
      return "The next request is over the usable window: older tool results will be cleared or shortened until it fits.";
    case "tooLarge":
      return "The next request is over the usable window and nothing is left to shrink: the API will refuse it. Start a new conversation (Agent: Clear) or raise agentls.contextWindow.";
    default:
      return "";
  }
}

/** "180K usable: 200K window − 20K reserved for the reply". */
export function usableWindowSentence(u: Pick<ContextUsage, "window" | "effectiveWindow">): string {
  return `${formatTokens(u.effectiveWindow)} usable: ${formatTokens(u.window)} window − ${formatTokens(u.window - u.effectiveWindow)} reserved for the reply`;
}

export type StatusBackground = undefined | "statusBarItem.warningBackground" | "statusBarItem.errorBackground";

export function statusBackground(level: ContextLevel | undefined): StatusBackground {
  if (level === "warn") return "statusBarItem.warningBackground";
  if (level === "high") return "statusBarItem.errorBackground";
  return undefined;
}

export type ServerPhase = "starting" | "running" | "restarting" | "stopped" | "error" | "setup";

/** Status bar text when no usage is known yet / server not running. */
export function phaseText(phase: ServerPhase): string {
  switch (phase) {
    case "starting":
      return "$(sync~spin) Agent: starting";
    case "restarting":
      return "$(sync~spin) Agent: restarting";
    case "setup":
      return "$(cloud-download) Agent: setting up";
    case "stopped":
      return "$(debug-stop) Agent: stopped";
    case "error":
      return "$(error) Agent: error";
    case "running":
      return "$(pulse) Agent";
  }
}

const CATEGORY_LABELS: [keyof ContextCategories, string][] = [
  ["system", "System prompt"],
  ["tools", "Tool definitions"],
  ["instructions", "Instructions (AGENTS.md…)"],
  ["user", "User messages"],
  ["assistant", "Assistant messages"],
  ["toolResults", "Tool results"],
];

const LAYER_LABELS: Record<string, string> = {
  truncate: "L0 truncate (oversized results cut)",
  budget: "L1 budget (old results shortened)",
  snip: "L2 snip (old results replaced)",
  clearInputs: "clear inputs (old tool inputs dropped)",
  clearProse: "clear prose (old assistant reasoning dropped)",
  microcompact: "microcompact (idle cleanup)",
  fold: "fold (spent turns become index lines)",
  supersede: "supersede (a harness state block a newer one restates)",
  clearTextResults: "clear text results (old results a harness sent as user text)",
  compact: "L3 compact (conversation summarised)",
};

export function layerLabel(layer: string): string {
  return LAYER_LABELS[layer] ?? layer;
}

export function escapeMd(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, (c) => `\\${c}`);
}

export function categoriesTable(c: ContextCategories): string {
  const rows = CATEGORY_LABELS.map(([k, label]) => `| ${label} | ${formatTokens(c[k] ?? 0)} |`);
  return ["| Category | Tokens |", "|---|---:|", ...rows].join("\n");
}

export function layersSummary(layers: LayerStat[]): string {
  const active = layers.filter((l) => l.count > 0);
  if (active.length === 0) return "No context layers have acted yet.";
  const rows = active.map(
    (l) => `| ${escapeMd(layerLabel(l.layer))} | ${l.count} | ${formatTokens(l.tokensSaved)} |`,
  );
  return ["| Layer | Times | Saved |", "|---|---:|---:|", ...rows].join("\n");
}

export const USE_MODEL_WINDOW = "agentls.useModelWindow";

/**
 * The working window beside the model's own: "Working window 200K of the model's 1M maximum (acme-x)."
 * `window` is the working window (agentls.contextWindow, default min(model, 200K)).
 */
export function windowSentence(u: Pick<ContextUsage, "window" | "modelWindow" | "model">): string {
  const model = u.model ? ` (${u.model})` : "";
  if (u.modelWindow == null) return `Working window ${formatTokens(u.window)}; the model's maximum is not known${model}.`;
  if (u.modelWindow <= u.window) return `Working window ${formatTokens(u.window)}: the model's full window${model}.`;
  return `Working window ${formatTokens(u.window)} of the model's ${formatTokens(u.modelWindow)} maximum${model}.`;
}

/** A one-click raise to the model's maximum (a trusted command link), or "" when there is nothing to raise. */
export function raiseWindowLink(u: Pick<ContextUsage, "window" | "modelWindow">): string {
  if (u.modelWindow == null || u.modelWindow <= u.window) return "";
  const args = encodeURIComponent(JSON.stringify([u.modelWindow]));
  return (
    `[Use the full ${formatTokens(u.modelWindow)} window](command:${USE_MODEL_WINDOW}?${args} "Set agentls.contextWindow to ${u.modelWindow}") ` +
    `— every request re-reads the whole conversation, so a long one costs more per call (1M tokens: 5× 200K).`
  );
}

/** Markdown tooltip for the status bar item. */
export function statusTooltip(u: ContextUsage): string {
  const next = nextRequestSentence(u.nextRequest);
  const raise = raiseWindowLink(u);
  return [
    `**Agent context: ${meterText({ ...u, nextRequest: "none" })}** (${u.level})`,
    "",
    `${formatTokens(u.used)} used of ${usableWindowSentence(u)}.`,
    "",
    windowSentence(u),
    ...(raise ? ["", raise] : []),
    ...(next ? ["", `**${next}**`] : []),
    ...(compactWarning(u) ? ["", `**${compactWarning(u)}** (agentls.thresholds.autoCompact; null turns it off)`] : []),
    "",
    categoriesTable(u.categories),
    "",
    layersSummary(u.layers),
    "",
    "Click to show the context.",
  ].join("\n");
}

export function formatUsage(u: Usage): string {
  const parts = [`${formatTokens(u.inputTokens)} in`, `${formatTokens(u.outputTokens)} out`];
  if (u.cacheReadTokens) parts.push(`${formatTokens(u.cacheReadTokens)} cache read`);
  if (u.cacheWriteTokens) parts.push(`${formatTokens(u.cacheWriteTokens)} cache write`);
  return parts.join(" · ");
}

export function formatUsd(usd: number): string {
  if (!Number.isFinite(usd)) return "$?";
  if (usd === 0) return "$0.00";
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/** "price unknown for acme-x (tokens counted)" when a model of the session has no known price, else "". */
export function unpricedSentence(c: Pick<CostResult, "unpricedModels">): string {
  const models = c.unpricedModels ?? [];
  return models.length ? `price unknown for ${models.join(", ")} (tokens counted)` : "";
}

/** The session's dollars: "$0.12", "price unknown" when nothing is priced, "$0.12 + price unknown" when part is. */
export function costAmount(c: Pick<CostResult, "usd" | "unpricedModels" | "requests">): string {
  const unpriced = (c.unpricedModels ?? []).length > 0;
  if (!unpriced) return formatUsd(c.usd);
  return c.usd > 0 ? `${formatUsd(c.usd)} + price unknown` : "price unknown";
}

export function costMarkdown(c: CostResult): string {
  const unpriced = unpricedSentence(c);
  return [
    `**Session cost: ${costAmount(c)}** — model \`${c.model}\`, ${c.requests} request${c.requests === 1 ? "" : "s"}`,
    ...(unpriced ? ["", `_${unpriced[0].toUpperCase()}${unpriced.slice(1)}: agentls has no list price for it (add one with the \`prices\` setting)._`] : []),
    "",
    "| | Tokens |",
    "|---|---:|",
    `| Input | ${formatTokens(c.inputTokens)} |`,
    `| Output | ${formatTokens(c.outputTokens)} |`,
    `| Cache read | ${formatTokens(c.cacheReadTokens)} |`,
    `| Cache write | ${formatTokens(c.cacheWriteTokens)} |`,
    `| of which 1-hour TTL | ${formatTokens(c.cacheWrite1hTokens ?? 0)} |`,
    "",
    `Cache TTL of the head and frontier breakpoints: ${c.cacheTtl ?? "5m"}`,
    ...subagentsMarkdown(c.subagents ?? []),
  ].join("\n");
}

/** Each subagent's tokens and cost, and their sum (the session's totals above include them); [] when none ran. */
export function subagentsMarkdown(items: SubagentCost[]): string[] {
  if (items.length === 0) return [];
  const tokens = (s: Pick<SubagentCost, "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens">) =>
    s.inputTokens + s.outputTokens + s.cacheReadTokens + s.cacheWriteTokens;
  const sum = items.reduce(
    (a, s) => ({ inputTokens: a.inputTokens + s.inputTokens, outputTokens: a.outputTokens + s.outputTokens,
      cacheReadTokens: a.cacheReadTokens + s.cacheReadTokens, cacheWriteTokens: a.cacheWriteTokens + s.cacheWriteTokens,
      usd: a.usd + s.usd, requests: a.requests + s.requests }),
    { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, usd: 0, requests: 0 },
  );
  // narrow: the panel is a side bar
  const row = (name: string, s: typeof sum) =>
    `| ${name} | ${s.requests} | ${formatTokens(tokens(s))} | ${formatUsd(s.usd)} |`;
  return [
    "",
    "**Subagents** (included above; tokens: input + output + cache)",
    "",
    "| Subagent | Requests | Tokens | Cost |",
    "|---|---:|---:|---:|",
    ...items.map((s) => row(escapeMd(s.name), s)),
    row("**Sum**", sum),
  ];
}

export function costLine(c: CostResult): string {
  const unpriced = unpricedSentence(c);
  const subs = c.subagents ?? [];
  const children = subs.length
    ? ` · ${subs.length} subagent${subs.length === 1 ? "" : "s"}: ${subs.map((x) => `${x.name} ${formatTokens(x.inputTokens + x.outputTokens + x.cacheReadTokens + x.cacheWriteTokens)}`).join(", ")}`
    : "";
  return `Agent cost: ${costAmount(c)}${unpriced ? ` (${unpriced})` : ""} · ${c.model} · ${c.requests} request${c.requests === 1 ? "" : "s"} · ${formatTokens(c.inputTokens)} in / ${formatTokens(c.outputTokens)} out (cache ${formatTokens(c.cacheReadTokens)} read, ${formatTokens(c.cacheWriteTokens)} write, TTL ${c.cacheTtl ?? "5m"})${children}`;
}

export function compactMarkdown(r: CompactResult): string {
  if (r.compacted === false) return `**Nothing compacted:** ${r.note || "nothing to gain."} (${formatTokens(r.tokensBefore)} tokens, unchanged)`;
  const pct = r.tokensBefore > 0 ? Math.round((1 - r.tokensAfter / r.tokensBefore) * 100) : 0;
  return `**Conversation compacted:** ${formatTokens(r.tokensBefore)} → ${formatTokens(r.tokensAfter)} tokens (−${pct}%)`;
}

export function contextMarkdown(c: ContextResult, updatedAt = new Date()): string {
  const next = nextRequestSentence(c.nextRequest);
  const compactions = c.layers.find((l) => l.layer === "compact")?.count ?? 0;
  const lines = [
    `# Agent context`,
    "",
    `**${meterText({ ...c, nextRequest: "none" })}** (${c.level}) — ${formatTokens(c.used)} tokens used of ${usableWindowSentence(c)}.`,
    "",
    ...(next ? [`**${next}**`, ""] : []),
    `_Live: updated ${updatedAt.toISOString().slice(11, 19)} UTC after every change._`,
    "",
    "## Categories",
    "",
    categoriesTable(c.categories),
    "",
    "## Layers (since the conversation started)",
    "",
    layersSummary(c.layers),
    "",
    "## Rewritten tool results in the context now",
    "",
  ];
  if (c.placeholders.length === 0) {
    lines.push(
      compactions > 0
        ? "None: the results rewritten earlier were summarised away by compaction; the results in the context now are in full."
        : "None yet: the results in the context are in full.",
    );
  } else {
    lines.push("| Tool | Layer | Original | Re-read with |", "|---|---|---:|---|");
    for (const p of c.placeholders) {
      lines.push(
        `| ${escapeMd(p.tool)} | ${escapeMd(p.layer)} | ${p.originalChars.toLocaleString("en-US")} chars | \`${p.ref}\` |`,
      );
    }
  }
  lines.push("", ...instructionsSection(c), "", ...mcpToolsSection(c));
  return lines.join("\n") + "\n";
}

function instructionsSection(c: ContextResult): string[] {
  const files = c.instructions ?? [];
  const lines = ["## Instructions", ""];
  if (files.length === 0) lines.push("No instruction files: add AGENTS.md at the workspace root (or in a folder, for work there).");
  else {
    lines.push("| File | Applies | Tokens | |", "|---|---|---:|---|");
    const scope = { user: "every workspace", root: "this workspace", nested: "its folder" } as const;
    for (const f of files) {
      const cut = f.cut ? `cut: ${f.chars.toLocaleString("en-US")} chars, over the cap` : "";
      lines.push(`| \`${f.name.replace(/[`|]/g, "_")}\` | ${scope[f.scope] ?? f.scope} | ${formatTokens(f.tokens)} | ${cut} |`);
    }
  }
  lines.push("", `Instruction changes (prompt-cache breaks): ${c.instructionChanges ?? 0}`);
  return lines;
}

function mcpToolsSection(c: ContextResult): string[] {
  const servers = c.mcpTools ?? [];
  const lines = ["## MCP tools", ""];
  if (servers.length === 0) lines.push("No MCP tools offered.");
  else {
    lines.push("| Server | Tools | Tokens per request |", "|---|---:|---:|");
    for (const s of servers) lines.push(`| ${escapeMd(s.server)} | ${s.tools} | ${formatTokens(s.tokens)} |`);
  }
  const search = c.toolSearch;
  if (search && search.deferred > 0) {
    const how = search.mode === "native" ? "Anthropic's tool search tool" : "agentls' search_tools";
    const loaded = search.mode === "builtin" ? `, ${search.loaded} loaded by search` : "";
    lines.push("", `Tool search: ${search.offered} offered, ${search.deferred} deferred to ${how}${loaded}; ` +
      `${formatTokens(search.savedTokens)} tokens of schemas left out of every request`);
  }
  lines.push("", `Tool-list changes (prompt-cache breaks): ${c.toolListChanges ?? 0}`);
  // The server's own warnings (an MCP server whose tools take over a tenth of the window); read defensively.
  for (const warning of c.warnings ?? []) lines.push("", `> ⚠ ${escapeMd(String(warning))}`);
  return lines;
}

/** "12.3K chars" for a tool card. */
/** A wait as a person reads it: "0.5 s", "1 s", "12 s", "2 min 5 s" (the server sends raw floats). */
export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "a moment";
  if (seconds < 10) {
    const tenths = Math.round(seconds * 10) / 10;
    return `${Number.isInteger(tenths) ? tenths : tenths.toFixed(1)} s`;
  }
  const whole = Math.round(seconds);
  return whole < 60 ? `${whole} s` : `${Math.floor(whole / 60)} min${whole % 60 ? ` ${whole % 60} s` : ""}`;
}

export function formatChars(n: number): string {
  if (n < 1000) return `${n} chars`;
  return `${formatTokens(n)} chars`;
}
