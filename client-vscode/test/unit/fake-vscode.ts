/**
 * A small fake of the `vscode` module for unit tests (esbuild aliases
 * `vscode` to this file). Tests reach the recorded state through `__fake`.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */

export class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  static from(...d: { dispose(): unknown }[]) {
    return new Disposable(() => d.forEach((x) => x.dispose()));
  }
  dispose() {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners: ((e: T) => void)[] = [];
  event = (l: (e: T) => void) => {
    this.listeners.push(l);
    return new Disposable(() => (this.listeners = this.listeners.filter((x) => x !== l)));
  };
  fire(e: T) {
    for (const l of [...this.listeners]) l(e);
  }
  dispose() {
    this.listeners = [];
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class MarkdownString {
  supportThemeIcons = false;
  isTrusted = false;
  constructor(public value = "") {}
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export class CancellationError extends Error {
  constructor() {
    super("Canceled");
  }
}

export class CancellationTokenSource {
  private readonly cancelled = new EventEmitter<void>();
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: this.cancelled.event,
  };
  cancel() {
    if (this.token.isCancellationRequested) return;
    this.token.isCancellationRequested = true;
    this.cancelled.fire();
  }
  dispose() {
    this.cancelled.dispose();
  }
}

export class Uri {
  constructor(readonly scheme: string, readonly path: string, readonly query = "") {}
  static file(p: string) {
    return new Uri("file", p);
  }
  static from(c: { scheme: string; path: string; query?: string }) {
    return new Uri(c.scheme, c.path, c.query ?? "");
  }
  static joinPath(u: Uri, ...parts: string[]) {
    return new Uri(u.scheme, [u.path, ...parts].join("/").replace(/\/+/g, "/"));
  }
  get fsPath() {
    return this.path;
  }
  toString() {
    return `${this.scheme}://${this.path}${this.query ? "?" + this.query : ""}`;
  }
}

export interface FakeStatusBarItem {
  id: string;
  text: string;
  tooltip: any;
  backgroundColor: ThemeColor | undefined;
  command: string | undefined;
  name: string;
  accessibilityInformation: any;
  visible: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}

export const __fake = {
  statusItems: [] as FakeStatusBarItem[],
  config: {} as Record<string, unknown>,
  extensions: {} as Record<string, any>,
  messages: [] as { level: string; message: string; options?: any; items: string[] }[],
  nextChoice: undefined as string | undefined,
  picks: [] as { items: any[]; options?: any }[],
  reset() {
    this.picks = [];
    this.statusItems = [];
    this.config = {};
    this.extensions = {};
    this.messages = [];
    this.nextChoice = undefined;
  },
};

function message(level: string) {
  return (msg: string, ...rest: any[]) => {
    const options = rest[0] && typeof rest[0] === "object" ? rest.shift() : undefined;
    __fake.messages.push({ level, message: msg, options, items: rest });
    return Promise.resolve(__fake.nextChoice);
  };
}

export const window = {
  createStatusBarItem(id: string): FakeStatusBarItem {
    const item: FakeStatusBarItem = {
      id,
      text: "",
      tooltip: undefined,
      backgroundColor: undefined,
      command: undefined,
      name: "",
      accessibilityInformation: undefined,
      visible: false,
      show() {
        this.visible = true;
      },
      hide() {
        this.visible = false;
      },
      dispose() {
        this.visible = false;
      },
    };
    __fake.statusItems.push(item);
    return item;
  },
  showWarningMessage: message("warning"),
  // the scripted choice by label; none (Enter on the first item is the caller's default, Escape) when unset
  showQuickPick: (items: any[], options?: any) => {
    __fake.picks.push({ items, options });
    return Promise.resolve(items.find((i) => i.label === __fake.nextChoice));
  },
  showInformationMessage: message("info"),
  showErrorMessage: message("error"),
  tabGroups: { all: [] as any[], close: async () => true },
};

export const workspace = {
  workspaceFolders: undefined as any,
  textDocuments: [] as any[],
  getConfiguration(section?: string) {
    return {
      get<T>(key: string, def?: T): T {
        const full = section ? `${section}.${key}` : key;
        return (full in __fake.config ? __fake.config[full] : def) as T;
      },
    };
  },
};

export const extensions = {
  getExtension(id: string) {
    return __fake.extensions[id];
  },
};

export const commands = {
  executeCommand: async () => undefined,
};

export class TabInputTextDiff {}
export class TabInputText {}
