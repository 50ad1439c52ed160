/** Read-only virtual documents: the context report and the two sides of an approval diff. */
import * as vscode from "vscode";

export const SCHEME = "agentls";

export class VirtualDocs implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly docs = new Map<string, string>();
  private readonly producers = new Map<string, () => Promise<string>>();
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  private seq = 0;

  provideTextDocumentContent(uri: vscode.Uri): string | Promise<string> {
    const key = uri.path + "?" + uri.query;
    const known = this.docs.get(key);
    if (known !== undefined) return known;
    // e.g. a tab restored after a reload: render it again rather than show it blank
    const produce = this.producers.get(key);
    return produce ? produce() : "";
  }

  /** Content made on demand for `agentls:<path>` when nothing was set yet (after a reload). */
  produce(pathPart: string, producer: () => Promise<string>): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: SCHEME, path: pathPart.startsWith("/") ? pathPart : `/${pathPart}` });
    this.producers.set(uri.path + "?" + uri.query, producer);
    return uri;
  }

  /** Sets (or replaces) the content of `agentls:<path>?<query>`. */
  set(pathPart: string, content: string, query = ""): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: SCHEME, path: pathPart.startsWith("/") ? pathPart : `/${pathPart}`, query });
    this.docs.set(uri.path + "?" + uri.query, content);
    this.emitter.fire(uri);
    return uri;
  }

  unique(): string {
    return String(++this.seq);
  }

  delete(uri: vscode.Uri): void {
    this.docs.delete(uri.path + "?" + uri.query);
  }

  dispose(): void {
    this.emitter.dispose();
    this.docs.clear();
  }
}
