/**
 * What a prompt carries besides its text: the selections added with "Add Selection to Chat"
 * (sent with their ranges) and the `@path` mentions (sent with the file's live text), plus the
 * workspace file list the input's `@` completion searches.
 */
import * as vscode from "vscode";
import type { AgentClient } from "../client";
import type { Attachment } from "../protocol";
import { FileList } from "../shared/fileList";
import { mentionedPaths, rankPaths } from "../shared/mentions";
import { linesLabel, selectedSpan } from "../shared/selection";

const MAX_ATTACHMENT_CHARS = 200_000;
const FILE_EXCLUDE = "{**/node_modules/**,**/.git/**,**/.venv/**,**/venv/**,**/__pycache__/**,**/dist/**,**/build/**,**/out/**}";

export interface Collected {
  attachments: Attachment[];
  labels: string[]; // the chips under the message
  missing: string[]; // mentions no workspace file answers
}

export class Attachments implements vscode.Disposable {
  private pending: Attachment[] = [];
  private readonly watcher: vscode.Disposable;
  private readonly files: FileList;

  constructor(private readonly agent: AgentClient) {
    this.files = new FileList(
      async () => {
        const t = Date.now();
        agent.log.debug("mention search: findFiles started");
        const uris = await vscode.workspace.findFiles("**/*", FILE_EXCLUDE, 5000);
        agent.log.debug(`mention search: findFiles found ${uris.length} files in ${Date.now() - t} ms`);
        return uris.map((u) => vscode.workspace.asRelativePath(u, false));
      },
      {
        onRetry: ({ attempt, delayMs, error }) =>
          agent.log.debug(
            `mention search: ${error ? `findFiles failed (${(error as Error)?.message ?? error})` : "no files found"}; retry ${attempt} in ${delayMs} ms`,
          ),
      },
    );
    this.watcher = this.watchFiles();
  }

  /**
   * "Agent: Add Selection to Chat": the selection kept to send with the next prompt; returns the
   * quote (file and line range) for the input.
   */
  addSelection(editor: vscode.TextEditor): string {
    const sel = editor.selection;
    const doc = editor.document;
    const span = selectedSpan(sel.start, sel.end, (line) => doc.lineAt(line).text.length);
    const range = sel.isEmpty
      ? doc.lineAt(sel.active.line).range
      : new vscode.Range(span.start.line, span.start.character, span.end.line, span.end.character);
    const text = doc.getText(range);
    const rel = vscode.workspace.asRelativePath(doc.uri, false);
    const lines = linesLabel(range.start, range.end);
    const fence = text.includes("```") ? "````" : "```";
    this.pending.push({
      uri: doc.uri.toString(),
      range: {
        start: { line: range.start.line, character: range.start.character },
        end: { line: range.end.line, character: range.end.character },
      },
    });
    return `\`${rel}\` ${lines}:\n${fence}${doc.languageId}\n${text.replace(/\n$/, "")}\n${fence}\n`;
  }

  /** Another conversation: the selections kept for this one are dropped. */
  forget(): void {
    this.pending = [];
  }

  /** The kept selections and the prompt's `@` mentions, to send with it. */
  async collect(prompt: string): Promise<Collected> {
    const attachments: Attachment[] = [...this.pending];
    const labels = this.pending.map((a) => {
      const rel = vscode.workspace.asRelativePath(vscode.Uri.parse(a.uri), false);
      return a.range ? `${rel}:${a.range.start.line + 1}-${a.range.end.line + 1}` : rel;
    });
    this.pending = [];
    const missing: string[] = [];
    for (const p of mentionedPaths(prompt)) {
      const uri = await resolveWorkspacePath(p);
      if (!uri) {
        missing.push(p);
        continue;
      }
      try {
        const doc = await vscode.workspace.openTextDocument(uri); // the live (possibly unsaved) text
        let text = doc.getText();
        if (text.length > MAX_ATTACHMENT_CHARS) text = text.slice(0, MAX_ATTACHMENT_CHARS);
        attachments.push({ uri: uri.toString(), text });
        labels.push(p);
      } catch {
        missing.push(p);
      }
    }
    return { attachments, labels, missing };
  }

  /** The input's `@` completion: workspace paths ranked for the query. */
  async search(query: string): Promise<string[]> {
    if (!vscode.workspace.workspaceFolders?.length) return []; // no folder: nothing to search, nothing to wait for
    return rankPaths(await this.files.paths(), query, 20);
  }

  /** A file created or deleted makes the @-mention list stale. */
  private watchFiles(): vscode.Disposable {
    const watcher = vscode.workspace.createFileSystemWatcher("**/*", false, true, false);
    watcher.onDidCreate(() => this.files.invalidate());
    watcher.onDidDelete(() => this.files.invalidate());
    return watcher;
  }

  dispose(): void {
    this.watcher.dispose();
  }
}

/** A path as the user wrote it (workspace-relative, folder-prefixed or absolute) → the file, if there is one. */
export async function resolveWorkspacePath(p: string): Promise<vscode.Uri | undefined> {
  const tries: vscode.Uri[] = [];
  if (p.startsWith("/")) tries.push(vscode.Uri.file(p));
  for (const f of vscode.workspace.workspaceFolders ?? []) {
    tries.push(vscode.Uri.joinPath(f.uri, p));
    const prefix = f.name + "/";
    if (p.startsWith(prefix)) tries.push(vscode.Uri.joinPath(f.uri, p.slice(prefix.length)));
  }
  for (const uri of tries) {
    try {
      const st = await vscode.workspace.fs.stat(uri);
      if (st.type & vscode.FileType.File) return uri;
    } catch {
      /* next */
    }
  }
  return undefined;
}
