/** How a session is shown in the history list: pure, so it is tested without VS Code. */
import type { SessionInfo } from "../protocol";
import { formatTokens } from "./format";

export function ago(seconds: number, now: number): string {
  if (!seconds) return "not started";
  const s = Math.max(0, Math.round(now - seconds));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

export interface SessionRow {
  label: string;
  description: string;
  detail: string;
}

export function sessionRow(s: SessionInfo, now: number): SessionRow {
  const state = s.current ? "this chat" : s.inUse ? "open in another window" : "";
  const turns = `${s.turns} turn${s.turns === 1 ? "" : "s"}`;
  return {
    label: s.title,
    description: [ago(s.updated, now), state].filter(Boolean).join(" · "),
    detail: `${turns} · ${formatTokens(s.tokens)} tokens · $${s.costUsd.toFixed(2)}`,
  };
}
