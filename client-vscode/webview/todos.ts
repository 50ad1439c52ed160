/**
 * The task list above the input: the model's todo_write list as a checklist, collapsible.
 * Read-only (the model owns the list); hidden while there is none. Its open/closed state is
 * the user's and survives reloads (the webview state).
 */
import type { Todo } from "../src/protocol";
import { el } from "./dom";

const MARK: Record<Todo["status"], string> = { completed: "☑", in_progress: "◐", pending: "☐" };
const LABEL: Record<Todo["status"], string> = { completed: "completed", in_progress: "in progress", pending: "pending" };

export function todoSummary(todos: readonly Todo[]): string {
  const done = todos.filter((t) => t.status === "completed").length;
  const doing = todos.find((t) => t.status === "in_progress");
  return `Tasks ${done}/${todos.length}${doing ? ` · ${doing.content}` : ""}`;
}

export class TodoPanel {
  readonly element: HTMLDetailsElement;
  private readonly summary: HTMLElement;
  private readonly list: HTMLUListElement;

  constructor(open: boolean, private readonly toggled: (open: boolean) => void) {
    this.summary = el("summary", { class: "todos-summary" });
    this.list = el("ul", { class: "todos-list", "aria-label": "Task list" });
    this.element = el("details", { class: "todos", id: "todos" }, this.summary, this.list);
    this.element.open = open;
    this.element.hidden = true;
    this.element.addEventListener("toggle", () => this.toggled(this.element.open));
  }

  render(todos: readonly Todo[]): void {
    this.element.hidden = todos.length === 0;
    this.summary.textContent = todoSummary(todos);
    this.list.replaceChildren(
      ...todos.map((t) =>
        el(
          "li",
          { class: `todo ${t.status}`, "data-status": t.status, title: LABEL[t.status] ?? t.status },
          el("span", { class: "todo-mark", "aria-label": LABEL[t.status] ?? t.status }, MARK[t.status] ?? "?"),
          el("span", { class: "todo-text" }, t.content),
        ),
      ),
    );
  }
}
