/**
 * What the chat views show, held once in the extension: the transcript (folded by the shared
 * reducer as each message is posted, so a view that opens later starts from it), the task list,
 * the custom commands, the meter's last figures and the model's label. Nothing is stored: after
 * a reload the transcript comes back from the server's transcript of record (sessions.ts).
 */
import type { AgentClient } from "../client";
import type { AgentMode, CommandInfo, ContextUsage, Todo } from "../protocol";
import * as T from "../shared/transcript";
import type { Host, Hosts } from "./hosts";

export class Panel {
  transcript: T.Transcript = T.emptyTranscript();
  todos: Todo[] = [];
  mode: AgentMode = "act"; // plan mode (agent/mode), as the server last answered
  commands: CommandInfo[] = [];
  usage: ContextUsage | undefined; // the meter's last figures: a view opened later shows them at once
  modelLabel = "";
  busy = false; // a turn runs
  loading = false; // the server's transcript of record is on its way (after a reload)

  constructor(
    private readonly agent: AgentClient,
    private readonly hosts: Hosts,
  ) {}

  /** A change of the transcript: folded here, and posted for every view (or `only` one) to fold the same way. */
  emit(m: T.TranscriptMessage, only?: Host): void {
    T.applyMessage(this.transcript, m);
    this.hosts.post(m, only);
  }

  /** testId: a stable `data-testid` on the notice (an e2e finds the cost view by it); action: a button on it. */
  notice(markdown: string, level: "info" | "warn" | "error" = "info", testId?: string, action?: T.NoticeAction): void {
    const m: T.TranscriptMessage = { type: "notice", markdown, level };
    if (testId) m.testId = testId;
    if (action) m.action = action;
    this.emit(m);
  }

  /** Another transcript (a new chat, a resumed or rewound one): every view starts over from it. */
  show(transcript: T.Transcript): void {
    this.transcript = transcript;
    this.loading = false;
    this.hosts.post({ type: "init", items: transcript.items, busy: false, server: this.agent.status, modelLabel: this.modelLabel });
  }

  /** The whole state to a view that just opened. */
  init(host: Host): void {
    const m = { type: "init" as const, items: this.transcript.items, busy: this.busy, server: this.agent.status, modelLabel: this.modelLabel };
    this.hosts.post(this.loading ? { ...m, loading: true } : m, host);
  }

  setTodos(todos: Todo[]): void {
    this.todos = todos;
    this.hosts.post({ type: "todos", todos });
  }

  setMode(mode: AgentMode): void {
    this.mode = mode;
    this.hosts.post({ type: "mode", mode });
  }

  setModelLabel(label: string): void {
    this.modelLabel = label;
    this.hosts.post({ type: "model", label });
  }
}
