/**
 * Polls `check` until it holds (true) or `timeoutMs` passes (false): for effects that arrive on their own
 * (notifications, reconnects) instead of a fixed sleep.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 2_000, intervalMs = 10 } = {},
): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
