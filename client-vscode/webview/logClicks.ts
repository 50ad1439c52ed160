/** Clicks in the log: copy a code block, open a result's original, open a file a path or a relative link names. */
import { post } from "./host";
import { arrowsWithin } from "./keyboard";
import { log } from "./layout";
import { promptBefore } from "./render";
import { state } from "./state";

function onClick(e: MouseEvent): void {
  const t = e.target as HTMLElement;
  const copy = t.closest("button.copy");
  if (copy) {
    const code = copy.parentElement?.querySelector("pre")?.textContent ?? "";
    post({ type: "copy", text: code });
    copy.textContent = "Copied";
    setTimeout(() => (copy.textContent = "Copy"), 1500);
    return;
  }
  const retry = t.closest("button.retry") as HTMLElement | null;
  if (retry) {
    const prompt = promptBefore(Number(retry.dataset.idx));
    if (prompt !== undefined && !state.busy) post({ type: "send", text: prompt });
    return;
  }
  const action = t.closest("button.notice-action") as HTMLElement | null;
  if (action) {
    const item = state.transcript.items[Number(action.dataset.idx)];
    if (item?.role === "notice" && item.action && !state.busy) post(item.action.post);
    return;
  }
  const original = t.closest("a.open-original") as HTMLElement | null;
  if (original) {
    e.preventDefault();
    post({ type: "openOriginal", toolUseId: original.dataset.toolUseId ?? "" });
    return;
  }
  const pathLink = t.closest("a.path-link") as HTMLElement | null;
  if (pathLink) {
    e.preventDefault();
    post({ type: "openFile", path: pathLink.dataset.path ?? "", line: Number(pathLink.dataset.line) || undefined });
    return;
  }
  const a = t.closest("a");
  if (a) {
    const href = a.getAttribute("href") ?? "";
    if (!/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith("#")) {
      e.preventDefault();
      post({ type: "openFile", path: href });
    }
  }
}

export function wireLog(): void {
  log.addEventListener("click", onClick);
  log.addEventListener("keydown", (e) => arrowsWithin(e, log));
}
