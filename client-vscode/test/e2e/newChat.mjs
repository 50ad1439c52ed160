// Agent: New Chat from the palette, waited for until the panel shows the new conversation. A panel
// that is empty already proves nothing (it may be the previous New Chat's), so the messages shown
// before are marked and the wait is for a "New chat." notice that is not one of them.
const MARK = "data-e2e-before-new-chat";

export async function newChat({ page, chat, palette, waitFor }) {
  await chat.locator(".msg").evaluateAll((els, mark) => els.forEach((e) => e.setAttribute(mark, "")), MARK);
  await palette(page, "Agent: New Chat");
  const fresh = chat.locator(`.msg.notice:not([${MARK}])`, { hasText: "New chat." });
  await waitFor(async () => (await fresh.count()) > 0 && (await chat.locator(".msg.user, .msg.assistant").count()) === 0, 30_000, "the new conversation in the panel");
}
