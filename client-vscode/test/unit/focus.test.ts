/**
 * Low list (issue 33): Ctrl+Alt+K right after a window loads puts the caret in the input. The view's page is
 * not listening yet then; the focus asked for before must reach it once it says "ready", not be lost.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Hosts } from "../../src/chat/hosts";
import type { ToWebview } from "../../src/shared/messages";
import { Uri } from "./fake-vscode";

function fakeView() {
  const posted: ToWebview[] = [];
  let hear: ((m: unknown) => void) | undefined;
  const webview = {
    options: {},
    html: "",
    cspSource: "vscode-resource:",
    asWebviewUri: (u: Uri) => u,
    postMessage: async (m: ToWebview) => void posted.push(m),
    onDidReceiveMessage: (f: (m: unknown) => void) => ((hear = f), { dispose: () => undefined }),
  };
  const view = {
    webview,
    visible: true,
    show: () => undefined,
    onDidChangeVisibility: () => ({ dispose: () => undefined }),
    onDidDispose: () => ({ dispose: () => undefined }),
  };
  return { view, posted, say: (m: unknown) => hear?.(m) };
}

function hostsWith() {
  const heard: unknown[] = [];
  const hosts = new Hosts(Uri.file("/ext") as never, (host, m) => {
    heard.push(m);
    if ((m as { type: string }).type === "ready") hosts.ready(host);
  }, () => undefined);
  return hosts;
}

test("the caret asked for before the view's page listens goes there once it says ready", () => {
  const hosts = hostsWith();
  const { view, posted, say } = fakeView();
  hosts.focusInput(); // Ctrl+Alt+K: no view yet
  hosts.viewProvider.resolveWebviewView(view as never, {} as never, {} as never);
  hosts.focusInput(); // the view exists, its page still loads
  assert.deepEqual(posted, [], "nothing posted to a page that does not listen yet");
  say({ type: "ready" });
  assert.deepEqual(posted, [{ type: "focusInput" }], "once, when the page listens");
  say({ type: "ready" }); // the page loaded again: nothing owed any more
  assert.equal(posted.length, 1);
});

test("a view that listens gets the caret at once", () => {
  const hosts = hostsWith();
  const { view, posted, say } = fakeView();
  hosts.viewProvider.resolveWebviewView(view as never, {} as never, {} as never);
  say({ type: "ready" });
  hosts.focusInput();
  assert.deepEqual(posted, [{ type: "focusInput" }]);
});
