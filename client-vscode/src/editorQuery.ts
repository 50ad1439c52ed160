/**
 * agent/editorQuery: the agent asks VS Code's own language features
 * (docs/protocol.md). The handler converts VS Code's answers to the wire
 * shapes; the `EditorApi` it talks to is VS Code itself in the extension
 * (`vscodeEditorApi`) and a plain fake in the unit tests.
 *
 * Diagnostics of a file carry a `generation`: how many times VS Code said
 * that file's diagnostics changed. After an edit the server asks with
 * `changedSince` + `waitMs`; we answer once the generation moved past it,
 * and past where it stood at the document's last text change (a language
 * server often re-publishes the old diagnostics when the focus moves, e.g.
 * when the approval's diff editor closes: that is not the edit's answer),
 * with content that differs from what the file had when its text changed
 * (TypeScript publishes syntax diagnostics first, merged with the old
 * semantic ones, and the semantic answer can come seconds later on a busy
 * machine), and no further change came for QUIET_MS; or when waitMs runs out.
 */
import * as vscode from "vscode";
import type {
  DiagnosticSeverityName,
  EditorDiagnostic,
  EditorQueryKind,
  EditorQueryParams,
  EditorQueryResult,
  EditorSymbol,
  Location,
  Position,
  Range,
} from "./protocol";

export const EDITOR_QUERY_KINDS: EditorQueryKind[] = ["diagnostics", "symbols", "definition", "references", "hover"];
export const QUIET_MS = 300;
const MAX_WAIT_MS = 60_000;

// The parts of VS Code's answers we read (structural, so tests can hand plain objects).
export interface RangeLike {
  start: Position;
  end: Position;
}
export interface DiagnosticLike {
  range: RangeLike;
  severity: number; // vscode.DiagnosticSeverity: 0 error … 3 hint
  message: string;
  source?: string;
  code?: string | number | { value: string | number };
}
export interface SymbolLike {
  name: string;
  kind: number; // vscode.SymbolKind (0-based: File = 0)
  containerName?: string;
  location?: { uri: { toString(): string }; range: RangeLike }; // SymbolInformation
  range?: RangeLike; // DocumentSymbol
  selectionRange?: RangeLike;
  children?: SymbolLike[];
}
export interface LocationLike {
  uri?: { toString(): string };
  range?: RangeLike;
  targetUri?: { toString(): string }; // LocationLink
  targetRange?: RangeLike;
  targetSelectionRange?: RangeLike;
}
export interface HoverLike {
  contents: (string | { value: string })[];
}

export interface EditorApi {
  /** The canonical form of a URI (how VS Code prints it), used as the key of generations. */
  canonical(uri: string): string;
  diagnostics(uri?: string): [string, DiagnosticLike[]][];
  workspaceSymbols(query: string): Promise<SymbolLike[] | undefined>;
  documentSymbols(uri: string): Promise<SymbolLike[] | undefined>;
  definition(uri: string, at: Position): Promise<LocationLike[] | undefined>;
  references(uri: string, at: Position): Promise<LocationLike[] | undefined>;
  hover(uri: string, at: Position): Promise<HoverLike[] | undefined>;
  onDidChangeDiagnostics(listener: (uris: string[]) => void): { dispose(): unknown };
  onDidChangeText(listener: (uri: string) => void): { dispose(): unknown };
}

// vscode.SymbolKind order; the wire uses LSP's names
const SYMBOL_KINDS = ["File", "Module", "Namespace", "Package", "Class", "Method", "Property", "Field", "Constructor", "Enum",
  "Interface", "Function", "Variable", "Constant", "String", "Number", "Boolean", "Array", "Object", "Key", "Null",
  "EnumMember", "Struct", "Event", "Operator", "TypeParameter"];
const SEVERITY_RANK: Record<DiagnosticSeverityName, number> = { error: 1, warning: 2, information: 3, hint: 4 };

const range = (r: RangeLike): Range => ({
  start: { line: r.start.line, character: r.start.character },
  end: { line: r.end.line, character: r.end.character },
});

function diagnostic(uri: string, d: DiagnosticLike): EditorDiagnostic {
  const out: EditorDiagnostic = { uri, range: range(d.range), severity: d.severity + 1, message: d.message };
  if (d.source) out.source = d.source;
  const code = typeof d.code === "object" && d.code !== null ? d.code.value : d.code;
  if (code !== undefined && code !== "") out.code = code;
  return out;
}

function flatten(symbols: SymbolLike[], uri: string | undefined, container?: string): EditorSymbol[] {
  const out: EditorSymbol[] = [];
  for (const s of symbols) {
    const where = s.location ? s.location.uri.toString() : uri;
    const r = s.location?.range ?? s.selectionRange ?? s.range;
    if (!where || !r) continue;
    const item: EditorSymbol = { name: s.name, kind: SYMBOL_KINDS[s.kind] ?? "Unknown", uri: where, range: range(r) };
    const parent = s.containerName || container;
    if (parent) item.containerName = parent;
    out.push(item);
    if (s.children?.length) out.push(...flatten(s.children, where, s.name));
  }
  return out;
}

function locations(found: LocationLike[] | undefined): Location[] {
  const out: Location[] = [];
  for (const l of found ?? []) {
    const uri = l.targetUri ?? l.uri;
    const r = l.targetSelectionRange ?? l.targetRange ?? l.range;
    if (uri && r) out.push({ uri: uri.toString(), range: range(r) });
  }
  return out;
}

function hoverText(found: HoverLike[] | undefined): string {
  const parts = (found ?? []).flatMap((h) => h.contents.map((c) => (typeof c === "string" ? c : c.value)));
  return parts.filter((p) => p.trim()).join("\n\n");
}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined || value === null) throw new Error(`${what} is required for this kind`);
  return value;
}

export class EditorQueryHandler {
  private readonly generations = new Map<string, number>();
  private readonly editedAt = new Map<string, number>(); // generation when the document's text last changed
  private readonly editedWith = new Map<string, string>(); // and the diagnostics it had then
  private readonly waiters = new Set<(uri: string) => void>();
  private readonly subs: { dispose(): unknown }[];

  constructor(private readonly api: EditorApi) {
    this.subs = [
      api.onDidChangeDiagnostics((uris) => {
        for (const uri of uris) {
          const key = api.canonical(uri);
          this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
          for (const w of [...this.waiters]) w(key);
        }
      }),
      api.onDidChangeText((uri) => {
        const key = api.canonical(uri);
        this.editedAt.set(key, this.generations.get(key) ?? 0);
        this.editedWith.set(key, this.contentOf(uri));
      }),
    ];
  }

  /** What a file's diagnostics say, as one comparable string. */
  private contentOf(uri: string): string {
    return JSON.stringify(this.api.diagnostics(uri).flatMap(([u, list]) => list.map((d) => diagnostic(u, d))));
  }

  generation(uri: string): number {
    return this.generations.get(this.api.canonical(uri)) ?? 0;
  }

  async handle(p: EditorQueryParams, token?: vscode.CancellationToken): Promise<EditorQueryResult> {
    switch (p.kind) {
      case "diagnostics":
        return this.diagnostics(p, token);
      case "symbols":
        return {
          symbols: p.uri
            ? flatten((await this.api.documentSymbols(p.uri)) ?? [], p.uri)
            : flatten((await this.api.workspaceSymbols(p.query ?? "")) ?? [], undefined),
        };
      case "definition":
        return { locations: locations(await this.api.definition(need(p.uri, "uri"), need(p.position, "position"))) };
      case "references":
        return { locations: locations(await this.api.references(need(p.uri, "uri"), need(p.position, "position"))) };
      case "hover":
        return { hover: hoverText(await this.api.hover(need(p.uri, "uri"), need(p.position, "position"))) };
      default:
        throw new Error(`unknown editorQuery kind ${JSON.stringify((p as { kind: unknown }).kind)}`);
    }
  }

  private async diagnostics(p: EditorQueryParams, token?: vscode.CancellationToken): Promise<EditorQueryResult> {
    const worst = SEVERITY_RANK[p.severity ?? "hint"] ?? 4;
    if (p.uri && p.changedSince !== undefined && p.waitMs) {
      await this.settled(this.api.canonical(p.uri), p.uri, p.changedSince, Math.min(p.waitMs, MAX_WAIT_MS), token);
    }
    const found = this.api.diagnostics(p.uri).flatMap(([uri, list]) =>
      list.map((d) => diagnostic(uri, d)).filter((d) => d.severity <= worst));
    return p.uri ? { diagnostics: found, generation: this.generation(p.uri) } : { diagnostics: found };
  }

  /** Resolves once `key`'s generation is above `since` (and its last edit) and QUIET_MS passed without a change, or after waitMs. */
  private settled(key: string, uri: string, since: number, waitMs: number, token?: vscode.CancellationToken): Promise<void> {
    return new Promise((resolve) => {
      const threshold = () => Math.max(since, this.editedAt.get(key) ?? 0);
      let quiet: ReturnType<typeof setTimeout> | undefined;
      const finish = () => {
        clearTimeout(quiet);
        clearTimeout(deadline);
        this.waiters.delete(onChange);
        cancel?.dispose();
        resolve();
      };
      const arm = () => {
        if ((this.generations.get(key) ?? 0) <= threshold()) return;
        const before = this.editedWith.get(key);
        if (before !== undefined && this.contentOf(uri) === before) return; // a re-publish, not the answer yet
        clearTimeout(quiet);
        quiet = setTimeout(finish, QUIET_MS);
      };
      const onChange = (changed: string) => changed === key && arm();
      const deadline = setTimeout(finish, waitMs);
      const cancel = token?.onCancellationRequested(finish);
      this.waiters.add(onChange);
      arm();
    });
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.waiters.clear();
  }
}

/** The EditorApi of the running VS Code: its diagnostics and its language-feature commands. */
export function vscodeEditorApi(): EditorApi {
  const uri = (u: string) => vscode.Uri.parse(u);
  const pos = (p: Position) => new vscode.Position(p.line, p.character);
  const run = <T>(command: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(command, ...args);
  return {
    canonical: (u) => uri(u).toString(),
    diagnostics: (u) =>
      u ? [[uri(u).toString(), vscode.languages.getDiagnostics(uri(u))]] : vscode.languages.getDiagnostics().map(([k, d]) => [k.toString(), d]),
    workspaceSymbols: (query) => Promise.resolve(run<SymbolLike[]>("vscode.executeWorkspaceSymbolProvider", query)),
    documentSymbols: (u) => Promise.resolve(run<SymbolLike[]>("vscode.executeDocumentSymbolProvider", uri(u))),
    definition: (u, at) => Promise.resolve(run<LocationLike[]>("vscode.executeDefinitionProvider", uri(u), pos(at))),
    references: (u, at) => Promise.resolve(run<LocationLike[]>("vscode.executeReferenceProvider", uri(u), pos(at))),
    hover: (u, at) => Promise.resolve(run<HoverLike[]>("vscode.executeHoverProvider", uri(u), pos(at))),
    onDidChangeDiagnostics: (listener) => vscode.languages.onDidChangeDiagnostics((e) => listener(e.uris.map((u) => u.toString()))),
    onDidChangeText: (listener) => vscode.workspace.onDidChangeTextDocument((e) => e.contentChanges.length && listener(e.document.uri.toString())),
  };
}
