/**
 * The cache report (agent/cost and agent/context `cache`) as Markdown: why the prompt cache missed,
 * request by request, and the thinking the API dropped. The server computes every figure and the
 * words for each reason (agent/cache_report.py); this only lays them out. The `data-testid`s let an
 * e2e find the reasons: in Show Context (the markdown preview renders raw HTML) on the spans, in the
 * panel's /cost on the notice itself (COST_TEST_ID).
 */
import type { CacheReport, RequestCache } from "../protocol";
import { escapeMd, formatTokens } from "./format";

export const COST_TEST_ID = "agent-cost";

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);
}

function missed(tokens: number | null | undefined): string {
  return tokens ? `${formatTokens(tokens)} tokens not read from cache` : "";
}

function dropped(c: CacheReport): string {
  const blocks = c.thinkingDropped.reduce((sum, d) => sum + d.count, 0);
  const reasons = c.thinkingDropped.map((d) => `${d.text} ×${d.count}`).join(", ");
  return `${blocks} block${blocks === 1 ? "" : "s"}${reasons ? ` (${reasons})` : ""}`;
}

function requestRow(r: RequestCache, withModel: boolean): string {
  const notes = [
    r.miss ? `${escapeMd(r.miss.text)}${r.miss.missedTokens ? ` (${missed(r.miss.missedTokens)})` : ""}` : "",
    r.thinkingDropped ? `${r.thinkingDropped} thinking dropped` : "",
  ].filter(Boolean);
  const model = withModel ? ` ${escapeMd(r.model)} |` : "";
  return `| ${r.number} |${model} ${formatTokens(r.cacheReadTokens)} | ${formatTokens(r.cacheWriteTokens)} | ${notes.join("; ")} |`;
}

/** /cost in the panel: misses by reason, then each request's reads, writes and reason ("" when none to tell). */
export function cacheCostMarkdown(c: CacheReport | undefined): string {
  if (!c) return "";
  const misses = c.misses.reduce((sum, m) => sum + m.count, 0);
  const lines = ["", "", `**Prompt cache misses: ${misses} of ${c.totalRequests} requests**`, ""];
  if (c.misses.length) {
    lines.push("| Reason | Misses | Cost |", "|---|---:|---|");
    for (const m of c.misses) lines.push(`| ${escapeMd(m.text)} | ${m.count} | ${missed(m.missedTokens)} |`);
    lines.push("");
  }
  if (c.thinkingDropped.length) lines.push(`Thinking dropped by the API: ${escapeMd(dropped(c))}`, "");
  const withModel = new Set(c.requests.map((r) => r.model)).size > 1; // a column only when the model changed
  lines.push(
    withModel ? "| # | Model | Read | Written | Why it missed |" : "| # | Read | Written | Why it missed |",
    withModel ? "|---:|---|---:|---:|---|" : "|---:|---:|---:|---|",
  );
  for (const r of c.requests) lines.push(requestRow(r, withModel));
  if (c.totalRequests > c.requests.length) lines.push("", `_The last ${c.requests.length} requests of ${c.totalRequests}._`);
  return lines.join("\n");
}

/** Show Context's Cache section: the last misses and their reasons, the thinking the API dropped. */
export function cacheContextMarkdown(c: CacheReport | undefined): string {
  const lines = ["## Cache", ""];
  if (!c) {
    lines.push(
      '<span data-testid="cache-nothing">Nothing to report</span>: no cache miss diagnosed (the API diagnoses misses on Anthropic endpoints), no thinking dropped.',
    );
    return lines.join("\n") + "\n";
  }
  if (c.recentMisses.length === 0) lines.push("No cache miss diagnosed.");
  else {
    lines.push("Last misses:", "");
    for (const r of c.recentMisses) {
      const reason = `<span data-testid="cache-miss-reason" data-kind="${escapeHtml(r.miss?.kind ?? "")}">${escapeHtml(r.miss?.text ?? "")}</span>`;
      const cost = missed(r.miss?.missedTokens);
      lines.push(`- request ${r.number} (${escapeMd(r.model)}): ${reason}${cost ? ` — ${cost}` : ""}`);
    }
  }
  lines.push("", `Thinking dropped by the API: <span data-testid="thinking-dropped">${escapeHtml(dropped(c))}</span>`);
  if (c.thinkingLetThrough) lines.push("", `Thinking that failed a binding check but was shown to the model: ${c.thinkingLetThrough}`);
  if (c.serverEdits) lines.push("", `Server-side context edits applied: ${c.serverEdits}`);
  return lines.join("\n") + "\n";
}
